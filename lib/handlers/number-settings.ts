/**
 * The numeric settings of the handlers that ship with Tickflow (built-ins and the shell executor):
 * their bounds, and the one check a value must pass. The worker reads its rules here for every attempt
 * (worker/handlers/types.ts numberSetting); saving a job applies it to the settings a step saves
 * and a trigger with a payload apply it to the merge the run will get (lib/handlers/check-payloads.ts),
 * so a bad value is refused at the field when it is written instead of failing a run later
 * (docs/handlers.md "Validation").
 */
import { ownValue } from '../own-keys.ts';

/** Longest `builtin.sleep` / `builtin.ignore-abort` delay: 7 days (a task timeout bounds it further). */
export const MAX_SLEEP_MS = 7 * 24 * 3600 * 1000;

/** Upper bound of `builtin.flaky` failTimes (attempts are bounded by maxRetries anyway). */
export const MAX_FAIL_TIMES = 1_000_000;

/** Longest grace between SIGTERM and SIGKILL a shell task may ask for: 10 minutes. */
export const MAX_KILL_GRACE_MS = 10 * 60 * 1000;

/** A numeric setting: absent means the handler's default; anything else must be a finite number in [min, max]. */
export type NumberSettingRule = { name: string; min: number; max: number; integer?: boolean; unit?: string };

/** The numeric settings each shipped handler reads from its step config overlaid by the payload. */
export const HANDLER_NUMBER_SETTINGS: Readonly<Record<string, readonly NumberSettingRule[]>> = {
  'builtin.sleep': [{ name: 'ms', min: 0, max: MAX_SLEEP_MS, unit: 'ms' }],
  'builtin.ignore-abort': [{ name: 'ms', min: 0, max: MAX_SLEEP_MS, unit: 'ms' }],
  'builtin.flaky': [{ name: 'failTimes', min: 0, max: MAX_FAIL_TIMES, integer: true }],
  shell: [{ name: 'killGraceMs', min: 0, max: MAX_KILL_GRACE_MS, unit: 'ms' }],
};

/** The numeric settings of the handler named `handler` (HANDLER_NUMBER_SETTINGS); none for any other name (lib/own-keys.ts). */
export function numberSettingRules(handler: string): readonly NumberSettingRule[] {
  return ownValue(HANDLER_NUMBER_SETTINGS, handler) ?? [];
}

/**
 * Checks one numeric setting's raw value (a number, or a numeric string). Absent (undefined / null)
 * is `{ value: undefined }`: the handler's default applies. A value that is not a finite number in
 * [min, max] (an integer when the rule says so) is `{ problem }`, a sentence for the field:
 * `must be a finite number between 0 and 604800000 ms, got "abc"`.
 */
export function checkNumberSetting(raw: unknown, rule: NumberSettingRule): { value: number | undefined } | { problem: string } {
  if (raw === undefined || raw === null) return { value: undefined };
  // a numeric string in decimal only: Number() would also read `0x10`, `0b11`, `1e3` and `Infinity`
  const n = typeof raw === 'string' && /^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof n === 'number' && Number.isFinite(n) && n >= rule.min && n <= rule.max && (!rule.integer || Number.isInteger(n))) return { value: n };
  let shown: string;
  try {
    shown = JSON.stringify(raw) ?? String(raw);
  } catch {
    shown = String(raw);
  }
  if (shown.length > 60) shown = `${shown.slice(0, 60)}…`;
  return { problem: `must be a finite ${rule.integer ? 'integer' : 'number'} between ${rule.min} and ${rule.max}${rule.unit ? ` ${rule.unit}` : ''}, got ${shown}` };
}
