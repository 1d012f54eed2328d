/** Handlers every worker ships (worker/handlers/index.ts); the form adds what online workers report. */
export const BUILTIN_HANDLERS = ['builtin.noop', 'builtin.echo', 'builtin.sleep', 'builtin.fail', 'builtin.flaky', 'http', 'shell', 'sql', 'grpc'] as const;

/** Built-ins first (in their usual order), then any extra handler names, sorted, without duplicates. */
export function mergeHandlers(extra: Iterable<string>): string[] {
  const base: string[] = [...BUILTIN_HANDLERS];
  const more = [...new Set(extra)].filter((h) => !base.includes(h)).sort();
  return [...base, ...more];
}
