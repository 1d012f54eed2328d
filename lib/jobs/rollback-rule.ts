/**
 * When a rollback restores something: the rule the REST route and the console share (rollback-job.ts refuses,
 * list-versions.ts marks each version, the Versions tab disables its button with the same words). A rollback
 * copies a version's configuration, never its status nor its layout (layout-rule.ts); a version whose configuration is
 * the current one — a pause or resume recorded after the last edit, the edit the job is back at, or one that differs
 * only in where boxes sit — would restore nothing.
 * Pure: no database here, so the Versions tab imports it too.
 */
import { jsonEqual } from '../api/json-guard.ts';
import type { JobSnapshot } from './job-view.ts';
import { withoutLayout } from './layout-rule.ts';

/**
 * A snapshot's configuration: all of it but the status and the steps' positions, which a rollback leaves as they
 * are (the layout is not configuration: layout-rule.ts).
 */
function configurationOf(snapshot: JobSnapshot | Record<string, unknown>): Record<string, unknown> {
  const { status: _status, ...configuration } = withoutLayout(snapshot);
  return configuration;
}

/** Whether two stored snapshots (job_versions.snapshot) hold the same configuration, whatever their status and layout. */
export function sameConfiguration(a: JobSnapshot | Record<string, unknown>, b: JobSnapshot | Record<string, unknown>): boolean {
  return jsonEqual(configurationOf(a), configurationOf(b));
}

/** Why rolling back to `version` (change type `changeType`) is refused when its configuration is the current one. */
export function nothingToRollBack(version: number, changeType: string, currentVersion: number): string {
  const statusOnly = changeType === 'pause' || changeType === 'resume' || changeType === 'delete' || changeType === 'restore';
  return statusOnly
    ? `Nothing to roll back: v${version} only records a ${changeType}; its configuration is the current one (v${currentVersion})`
    : `Nothing to roll back: v${version}'s configuration is the current one (v${currentVersion})`;
}
