'use client';
// The job form's Policy and Routing sections (components/jobs/job-form.tsx).
import { Field, controlProps } from '../ui/field';
import { NativeSelect } from '../ui/input';
import { FormSection, NumberField, ValueField } from './job-form-fields';
import { FORM_FIELDS } from './job-form-paths';
import { locksRouting } from '@/lib/jobs/handler-permissions';
import type { JobFormState } from './use-job-form';

/** Timeout, retries and backoff, priority, dead letter, block strategy, misfire policy. */
export function PolicySection({ f }: { f: JobFormState }) {
  const { err, text } = f;
  return (
  <FormSection title="Policy" description="Timeouts, retries with exponential backoff, and what happens on overlap, downtime and repeated failure." className="grid grid-cols-2 gap-4 md:grid-cols-4">
      <NumberField f={f} path="policy.timeoutSeconds" k="timeoutSeconds" />
      <NumberField f={f} path="policy.maxRetries" k="maxRetries" />
      <NumberField f={f} path="policy.priority" k="priority" />
      <NumberField f={f} path="policy.deadLetterAfter" k="deadLetterAfter" />
      <NumberField f={f} path="policy.backoff.baseSeconds" k="backoffBaseSeconds" step="any" />
      <NumberField f={f} path="policy.backoff.factor" k="backoffFactor" step="any" />
      <NumberField f={f} path="policy.backoff.maxSeconds" k="backoffMaxSeconds" step="any" />
      <NumberField f={f} path="policy.backoff.jitter" k="backoffJitter" step="any" />
      <Field {...FORM_FIELDS['policy.blockStrategy']} error={err('policy.blockStrategy')} className="col-span-2">
        <NativeSelect {...controlProps(FORM_FIELDS['policy.blockStrategy'].id, err('policy.blockStrategy'))} {...text('blockStrategy')}>
          <option value="discard_later">discard_later — skip a fire while a run is active</option>
          <option value="serial_execution">serial_execution — queue behind the active run</option>
          <option value="cover_early">cover_early — cancel the active run, start the new one</option>
        </NativeSelect>
      </Field>
      <Field {...FORM_FIELDS['policy.misfirePolicy']} error={err('policy.misfirePolicy')}>
        <NativeSelect {...controlProps(FORM_FIELDS['policy.misfirePolicy'].id, err('policy.misfirePolicy'))} {...text('misfirePolicy')}>
          <option value="skip">skip</option>
          <option value="fire_once">fire_once</option>
          <option value="fire_all">fire_all (capped)</option>
        </NativeSelect>
      </Field>
      <NumberField f={f} path="policy.misfireMaxCatchup" k="misfireMaxCatchup" />
  </FormSection>
  );
}

/** Node group, labels, strategy and its nodes / key. */
export function RoutingSection({ f }: { f: JobFormState }) {
  const { v, err, text } = f;
  // which hosts run an admin's privileged step is part of its command (docs/security.md): read-only, with the reason
  const lockedRouting = locksRouting(f.lockedCommand) ? f.lockedCommand : null;
  const locked = lockedRouting ? { disabled: true, title: lockedRouting.reason } : {};
  return (
  <FormSection title="Routing" description="Which workers may run this job's tasks." className="grid grid-cols-1 gap-4 md:grid-cols-3">
      {lockedRouting ? (
        <p role="note" data-testid="routing-locked" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-[13px] text-amber-900 md:col-span-3">
          Only an admin may change where this job runs: {lockedRouting.reason}.
        </p>
      ) : null}
      <ValueField f={f} path="routing.nodeGroup" k="routingGroup" hint="Empty: any group" placeholder="default" {...locked} />
      <ValueField f={f} path="routing.labels" k="routingLabels" hint="key=value, comma-separated; a worker must carry all" placeholder="region=eu, gpu=true" {...locked} />
      <Field {...FORM_FIELDS['routing.strategy']} error={err('routing.strategy')}>
        <NativeSelect {...controlProps(FORM_FIELDS['routing.strategy'].id, err('routing.strategy'))} {...text('routingStrategy')} {...locked}>
          <option value="any">any — first free matching worker</option>
          <option value="consistent_hash">consistent_hash — same worker for the same key</option>
          <option value="nodes">nodes — only the listed nodes</option>
        </NativeSelect>
      </Field>
      {v.routingStrategy === 'nodes' ? (
        <ValueField f={f} path="routing.nodes" k="routingNodes" hint="Node ids, comma-separated" className="md:col-span-2" {...locked} />
      ) : null}
      {v.routingStrategy === 'consistent_hash' ? (
        <ValueField f={f} path="routing.key" k="routingKey" hint="Hashed to pick the worker; empty: the job id" {...locked} />
      ) : null}
  </FormSection>
  );
}
