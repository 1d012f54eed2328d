/**
 * The one parser of an integer setting from the environment, for the worker (worker/config.ts,
 * worker/task-log-writer.ts) and the console alike (lib/alarms/config.ts alarmSettings): a
 * malformed value stops the process at start, naming the variable, rather than being replaced by
 * its default without a word (README "Configuration").
 */

/** A setting from the environment that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * The integer in `env[name]`, or `fallback` when it is unset or blank.
 * @param min smallest accepted value; @param max largest (default Number.MAX_SAFE_INTEGER)
 * @throws ConfigError `<name> must be an integer between <min> and <max>, got "<raw>"` for anything
 *   else: a fraction, a word, a number out of range, `1e3`-style spellings included only when whole
 */
export function envInt(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return n;
}
