'use client';
// The job page's "Graph" tab: the DAG editor bound to the job's save action, with optimistic locking by job
// version (a stale editor gets the server's 409 message instead of overwriting someone else's change).
import { useCallback, useRef } from 'react';
import { useRouter } from 'next/navigation';
import { DagEditor } from './DagEditor';
import type { DagDraft, EdgeDraft, SaveDagResult, StepDraft } from './model';

/** What JobGraphTab sends to the save action: the editor's DAG plus the job version it was loaded from. */
export type SaveJobDagInput = DagDraft & { expectedVersion?: number };

/**
 * What the save action resolves to (app/_actions/result.ts ActionResult): `data.version` is the job's version after
 * the save (the same one when only the layout changed: lib/jobs/layout-rule.ts);
 * `fields` are dotted paths into the input (`steps.2.key`, `edges`), `code` the DomainError code (`conflict` = 409).
 */
export type SaveJobDagResult = { ok: true; data?: { version?: number } | null } | { ok: false; error: string; fields?: Record<string, string>; code?: string };

/**
 * Props of {@link JobGraphTab}.
 * - `jobId`, `version`: the job and the version the page loaded (sent as `expectedVersion`).
 * - `steps`, `edges`: the job's DAG (lib/jobs StepView[] / EdgeView[] fit as they are).
 * - `handlers`: palette, the handler names online workers report.
 * - `canEdit`: operator/admin on a live job; false renders the read-only graph.
 * - `saveAction(jobId, input)`: the server action `saveJobDagAction` from app/(console)/jobs/[id]/actions.ts.
 */
export type JobGraphTabProps = {
  jobId: string;
  version?: number;
  steps: StepDraft[];
  edges: EdgeDraft[];
  handlers: string[];
  canEdit: boolean;
  saveAction: (jobId: string, input: SaveJobDagInput) => Promise<SaveJobDagResult>;
};

/** Client wrapper of {@link DagEditor} for the job page; refreshes the page's server data after a save. */
export function JobGraphTab({ jobId, version, steps, edges, handlers, canEdit, saveAction }: JobGraphTabProps) {
  const router = useRouter();
  // The version we last saw: the page prop at first, then whatever our own saves returned (the page's props only
  // catch up after router.refresh(), and a second save before that must not send a stale version).
  const seen = useRef<{ prop: number | undefined; latest: number | undefined }>({ prop: version, latest: version });
  if (seen.current.prop !== version) seen.current = { prop: version, latest: version };

  const onSave = useCallback(
    async (dag: DagDraft): Promise<SaveDagResult> => {
      const r = await saveAction(jobId, { ...dag, expectedVersion: seen.current.latest });
      if (!r.ok) {
        const error = r.code === 'conflict' ? `${r.error} — reload the page to see the latest graph (your edits stay until you do).` : r.error;
        return { ok: false, error, fields: r.fields };
      }
      const next = r.data?.version;
      // the same version back: only the layout was stored (lib/jobs/layout-rule.ts), no new version
      const newVersion = typeof next !== 'number' || next !== seen.current.latest;
      if (typeof next === 'number') seen.current.latest = next;
      router.refresh();
      return { ok: true, newVersion };
    },
    [jobId, saveAction, router],
  );

  return <DagEditor steps={steps} edges={edges} handlers={handlers} readOnly={!canEdit} onSave={onSave} />;
}
