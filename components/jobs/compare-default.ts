/** Change types that alter a job's configuration; the others (pause, resume, delete, restore) change only its status. */
const CONFIGURATION_CHANGES = new Set(['create', 'update', 'rollback']);

/**
 * The two versions the versions panel ticks for Compare when it opens: the newest version that
 * changed the configuration and the version just before it, oldest first. A pause or resume
 * records a version too (docs/console.md "Versions"), but comparing it with the version before
 * shows only the status; operators open Compare to see what the last edit changed.
 * Falls back to the two newest versions when no configuration change has an older version.
 * @param versions newest first, as the panel lists them
 * @returns zero, one or two version numbers, ascending
 */
export function defaultComparePair(versions: { version: number; changeType: string }[]): number[] {
  const at = versions.findIndex((v, i) => CONFIGURATION_CHANGES.has(v.changeType) && i + 1 < versions.length);
  const pair = at >= 0 ? versions.slice(at, at + 2) : versions.slice(0, 2);
  return pair.map((v) => v.version).sort((a, b) => a - b);
}
