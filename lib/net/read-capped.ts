/**
 * Reading a body from a peer Tickflow does not control (an `http` step's target, an alarm
 * webhook, a client's request) never holds more than a fixed number of bytes: past the cap the
 * rest of the stream is cancelled, so a peer that streams gigabytes costs no more memory than it.
 */
import { StringDecoder } from 'node:string_decoder';

/**
 * Reads a stream whole when it holds at most `limit` bytes; null when it holds more (what is past
 * the limit is cancelled, not read).
 * @param body a web ReadableStream (a Request's or Response's `body`; null reads as empty)
 * @param limit the most bytes read
 */
export async function readAtMost(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | null> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * Reads at most `cap` bytes of a fetch response body (UTF-8 text, cut at the cap on a character
 * boundary), then cancels the rest of the stream.
 * @param res a fetch Response (or anything with a web ReadableStream `body`)
 * @param cap the most bytes kept
 * @param signal aborts the read between chunks (throws its reason)
 * @returns the text and whether it was cut
 */
export async function readCapped(
  res: { body: { getReader(): ReadableStreamDefaultReader<Uint8Array> } | null },
  cap: number,
  signal?: AbortSignal,
): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size > cap) {
        truncated = true;
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
  } finally {
    reader.releaseLock?.();
  }
  const all = Buffer.concat(chunks);
  const capped = capUtf8(all.toString('utf8'), cap);
  return { text: capped.text, truncated: truncated || capped.truncated };
}

/** Truncates a string to at most `max` UTF-8 bytes, never inside a character, saying whether it cut. */
export function capUtf8(text: string, max: number): { text: string; truncated: boolean } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= max) return { text, truncated: false };
  return { text: utf8Prefix(buf, max), truncated: true };
}

/**
 * The text of the first `max` bytes of UTF-8 `buf` (all of it when `max` is its length), without a
 * character cut at the end, which would read as U+FFFD: Node's StringDecoder holds back the bytes of
 * an incomplete last character, and nothing asks it for them (Node docs, "String decoder").
 */
export function utf8Prefix(buf: Buffer, max: number): string {
  return new StringDecoder('utf8').write(buf.subarray(0, Math.min(max, buf.length)));
}
