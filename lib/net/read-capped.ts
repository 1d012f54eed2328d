/**
 * Reading an answer from a server Tickflow does not control (an `http` step's target, an alarm
 * webhook): at most a fixed number of bytes are kept, the rest is cancelled, so a receiver that
 * streams gigabytes costs the worker no more memory than the cap.
 */

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

/** Truncates a string to at most `max` UTF-8 bytes, saying whether it cut. */
export function capUtf8(text: string, max: number): { text: string; truncated: boolean } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= max) return { text, truncated: false };
  return { text: buf.subarray(0, max).toString('utf8'), truncated: true };
}
