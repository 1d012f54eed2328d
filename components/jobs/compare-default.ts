/** Change types that alter a job's configuration; the others (pause, resume, delete, restore) change only its status. */
const CONFIGURATION_CHANGES = new Set(['create', 'update', 'rollback']);

type VersionLike = { version: number; changeType: string };

/**
 * The two versions the versions panel ticks for Compare when it opens: the newest version that
 * changed the configuration and the version just before it, oldest first. A pause or resume
 * records a version too (docs/console.md "Versions"), but comparing it with the version before
 * shows only the status; operators open Compare to see what the last edit changed.
 * When no configuration change has an older version (only the creation set one), nothing is ticked:
 * every pair would differ in status alone, and the panel says so (noConfigurationChange).
 * @param versions newest first, as the panel lists them
 * @returns zero or two version numbers, ascending
 */
export function defaultComparePair(versions: VersionLike[]): number[] {
  const at = versions.findIndex((v, i) => CONFIGURATION_CHANGES.has(v.changeType) && i + 1 < versions.length);
  if (at < 0) return [];
  return versions.slice(at, at + 2).map((v) => v.version).sort((a, b) => a - b);
}

/**
 * Why the listed history has nothing to compare, or null: one version, or every version after v1 records a
 * pause, resume, delete or restore, so all of them hold v1's configuration. Only when v1 is listed (an older
 * page not loaded yet may hold edits).
 */
export function noConfigurationChange(versions: VersionLike[]): string | null {
  if (versions.length === 0 || versions[versions.length - 1].version !== 1) return null;
  if (versions.some((v) => v.version !== 1 && CONFIGURATION_CHANGES.has(v.changeType))) return null;
  if (versions.length === 1) return 'Only v1 exists: the job has not been edited since it was created, so there is nothing to compare yet.';
  return `The configuration has not changed since v1: v2${versions.length > 2 ? `–v${versions[0].version}` : ''} only record${versions.length > 2 ? '' : 's'} status changes (pause, resume, delete, restore). Edit the job to have a change to compare.`;
}
