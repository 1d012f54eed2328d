/** A piece of an engine-written text: plain words, or a run id it names (`run <uuid>`). */
export type RunTextSegment = { text: string } | { text: string; runId: string };

const RUN_ID = /\brun ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/gi;

/**
 * Splits a run's reason or error, as the engine writes them ("queued: waiting for run <id>",
 * "withdrawn before its slot: a manual run <id> by … came first", "blocked: previous run <id>
 * still active"), into plain text and the run ids it names, so the page can link each one.
 * Only an id right after the word "run" counts; the segments joined give `text` back.
 */
export function runTextSegments(text: string): RunTextSegment[] {
  const out: RunTextSegment[] = [];
  let at = 0;
  for (const m of text.matchAll(RUN_ID)) {
    const idStart = m.index + m[0].length - m[1]!.length;
    if (idStart > at) out.push({ text: text.slice(at, idStart) });
    out.push({ text: m[1]!, runId: m[1]!.toLowerCase() });
    at = idStart + m[1]!.length;
  }
  if (at < text.length) out.push({ text: text.slice(at) });
  return out;
}
