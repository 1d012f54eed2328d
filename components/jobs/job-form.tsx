'use client';

import { EMPTY_JOB_FORM } from './form-values';
import { FormBanner } from './job-form-banner';
import { PolicySection, RoutingSection } from './job-form-policy';
import { ScheduleSection } from './job-form-schedule';
import { AlarmsSection, FormFooter, GeneralSection } from './job-form-sections';
import { WhatToRunSection } from './job-form-what-to-run';
import { useJobForm } from './use-job-form';
import type { JobFormValues } from './form-values';
import type { HandlerPrivilege } from '@/lib/jobs/handler-permissions';

/** Result shape of the create/update server actions (app/_actions/result.ts ActionResult). */
export type JobFormResult =
  | { ok: true; data: { id: string } }
  | { ok: false; error: string; fields?: Record<string, string>; code?: string; detail?: Record<string, unknown> };

export type JobFormProps = {
  mode: 'create' | 'edit';
  /** Starting values (EMPTY_JOB_FORM for create, the job's current values for edit). */
  initial?: JobFormValues;
  /** IANA zones for the picker (lib/schedule listTimeZones, passed from the server page). */
  timeZones: string[];
  /** Handler names offered in the select (built-ins + those online workers report). */
  handlers: string[];
  /**
   * The server action: gets the CreateJobInput-shaped object (plus `expectedVersion`
   * in edit mode) and answers ok (then usually redirects) or errors keyed by field path.
   */
  submit: (input: Record<string, unknown>) => Promise<JobFormResult>;
  /** Edit mode: the version the editor started from (optimistic lock). */
  expectedVersion?: number;
  /** Edit mode: the job's id, from which its stagger offset is hashed (the fire preview lists its due instants). */
  jobId?: string;
  /** Edit mode: when the job was created (ISO), where an interval without a window start is anchored (the fire preview). */
  jobCreatedAt?: string;
  cancelHref: string;
  /** Handlers this deployment marks privileged (TICKFLOW_PRIVILEGED_HANDLERS, read on the server). */
  privilegedHandlers?: string[];
  /**
   * Edit mode: the step whose privilege the user does not hold (lib/jobs/handler-permissions.ts commandLockOf,
   * decided on the server over every step); what the job runs and where are then read-only, with the reason.
   */
  commandLock?: HandlerPrivilege | null;
};

/**
 * Create/edit form for every field of a job. Values live in React state (the user's
 * input survives a failed save); errors from the server action (`fields`, dotted
 * paths like `schedule.cron`, `payload`, `policy.timeoutSeconds`) render next to their
 * fields, client-side checks (JSON, labels) use the same paths. A 409 conflict in edit
 * mode shows a banner with the newer version and a reload option; nothing is
 * overwritten silently. State: useJobForm; sections: job-form-banner, -sections, -schedule, -what-to-run, -policy.tsx.
 */
export function JobForm({ mode, initial = EMPTY_JOB_FORM, timeZones, handlers, submit, expectedVersion, jobId, jobCreatedAt, cancelHref, privilegedHandlers = [], commandLock = null }: JobFormProps) {
  const f = useJobForm({ mode, initial, handlers, submit, expectedVersion, privilegedHandlers, commandLock });
  return (
    <form onSubmit={f.onSubmit} noValidate className="max-w-5xl space-y-4" aria-label={mode === 'create' ? 'New job' : 'Edit job'}>
      <FormBanner f={f} />
      <GeneralSection f={f} />
      <ScheduleSection f={f} timeZones={timeZones} jobId={jobId} jobCreatedAt={jobCreatedAt} />
      <WhatToRunSection f={f} />
      <PolicySection f={f} />
      <RoutingSection f={f} />
      <AlarmsSection f={f} />
      <FormFooter f={f} cancelHref={cancelHref} />
    </form>
  );
}
