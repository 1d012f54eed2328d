'use client';
// The job form's banner (components/jobs/job-form.tsx): a 409 conflict with what changed, or a refused save's summary.
import { RefreshCw, TriangleAlert } from 'lucide-react';
import { Button } from '../ui/button';
import { FieldDiffTable, type FieldChange } from './field-diff-table';
import { errorSummary } from './job-form-paths';
import type { JobFormState } from './use-job-form';
import { leaveThen } from '../unsaved-changes';

/**
 * The 409 conflict banner (with what changed and a reload), or the summary of a refused save: the
 * fields to fix by their labels (components/jobs/job-form-paths.ts), the form's own check first, and
 * the server's errors that have no field in the form.
 */
export function FormBanner({ f }: { f: JobFormState }) {
  const { state, conflict, orphan, expectedVersion, clientErrors } = f;
  const serverFields = state && !state.ok ? (state.fields ?? {}) : {};
  const stopped = Object.keys(clientErrors).length > 0;
  // A refused field list reads by label; any other refusal (403, a key in use) says why in its own words.
  const heading = stopped ? errorSummary(clientErrors) : state && !state.ok && state.code === 'validation' ? (errorSummary(serverFields) ?? state.error) : state && !state.ok ? state.error : undefined;
  return conflict ? (
    <div role="alert" data-testid="conflict-banner" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-[13px] text-amber-900">
      <div className="flex items-start gap-2">
        <TriangleAlert className="mt-0.5 size-4 shrink-0" />
        <div className="min-w-0 flex-1">
          <p className="font-medium">Someone else changed this job while you were editing.</p>
          <p className="mt-0.5">{conflict.error}</p>
          <ConflictDetail detail={conflict.detail} expectedVersion={expectedVersion} />
          <p className="mt-1 text-xs">Your edits are still in the form below and were not saved. Reload to start from the latest version (your edits will be discarded), or copy what you need first.</p>
        </div>
        <Button size="sm" onClick={() => void leaveThen(() => window.location.reload())}>
          <RefreshCw />
          Reload latest
        </Button>
      </div>
    </div>
  ) : stopped || (state && !state.ok && (state.code === 'validation' || Object.keys(serverFields).length)) ? (
    <div role="alert" data-testid="form-error-summary" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-[13px] text-red-800">
      {heading}
      {orphan.length ? (
        <ul className="mt-1 list-disc pl-5 text-xs">
          {orphan.map((o) => (
            <li key={o.path}>
              <span className={o.label === o.path ? 'font-mono' : 'font-medium'}>{o.label}</span>: {o.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  ) : null;
}

/** What the 409 told us (lib/jobs versionConflict detail): versions, who changed it, and each changed field from -> to. */
function ConflictDetail({ detail, expectedVersion }: { detail?: Record<string, unknown>; expectedVersion?: number }) {
  if (!detail) return null;
  const current = detail.currentVersion;
  const by = typeof detail.changedBy === 'string' ? detail.changedBy : null;
  const diff = detail.diff as { fields?: FieldChange[]; changedFields?: string[] } | null | undefined;
  const fields = diff?.fields ?? [];
  const other = (diff?.changedFields ?? (detail.changedFields as string[] | undefined) ?? []).filter((f) => !fields.some((x) => x.path === f));
  return (
    <div className="mt-2 text-xs" data-testid="conflict-detail">
      <p>
        You started from version {expectedVersion ?? '?'}; the job is now at version {String(current ?? '?')}
        {by ? `, last changed by ${by}` : ''}.
      </p>
      {fields.length || other.length ? (
        <FieldDiffTable rows={fields} changedOnly={other} labels={['Field', 'Your base', 'Now']} tone="conflict" />
      ) : null}
    </div>
  );
}
