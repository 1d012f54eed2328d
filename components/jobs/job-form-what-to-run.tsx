'use client';
// The job form's What to run section (components/jobs/job-form.tsx): handler and payload of a one-step job.
import { Card, CardBody, CardHeader } from '../ui/card';
import { Field, controlProps } from '../ui/field';
import { NativeSelect, Textarea } from '../ui/input';
import { PayloadEditor } from '../handlers/schema-form';
import { defaultsNote, unavailableNote } from '../handlers/use-handler-catalogue';
import { useDisplayZone } from '../display-zone';
import { FORM_FIELDS } from './job-form-paths';
import type { JobFormState } from './use-job-form';
import { locksRouting, type HandlerPrivilege } from '@/lib/jobs/handler-permissions';
import { cn } from '../ui/cn';

/** Why what the job runs (and, for an admin's privileged step, where) is read-only for this user (lib/jobs/handler-permissions.ts). */
function LockedNote({ lock, className }: { lock: HandlerPrivilege; className?: string }) {
  return (
    <p role="note" data-testid="privileged-reason" className={cn('rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-[13px] text-amber-900', className)}>
      {locksRouting(lock)
        ? <>Only an admin may change what this job runs or where it runs: {lock.reason}. You may still change its schedule, policy and alarms, and pause or resume it.</>
        : <>Only the system may change what this job runs: {lock.reason}. You may still change its schedule, policy, routing and alarms, and pause or resume it.</>}
    </p>
  );
}

/** Handler and payload of a one-step job (a DAG is edited in the Graph tab). */
export function WhatToRunSection({ f }: { f: JobFormState }) {
  const { v, err, text, set, handlerOptions, catalogue, payloadErrors, lockedCommand, refusedHandlers, mayChoose } = f;
  const handlerEntry = catalogue.get(v.handler);
  const zone = useDisplayZone();
  const handlerHint = [handlerEntry?.description, unavailableNote(handlerEntry, zone), defaultsNote(handlerEntry)].filter(Boolean).join(' · ');
  return (
  <Card>
    <CardHeader title="What to run" description={v.singleStep ? 'A one-step job. Add more steps and dependencies in the Graph tab after saving.' : 'This job has several steps; edit handlers and payloads in the Graph tab.'} />
    {!v.singleStep && lockedCommand ? (
      <CardBody>
        <LockedNote lock={lockedCommand} />
      </CardBody>
    ) : null}
    {v.singleStep ? (
      <CardBody className="grid grid-cols-1 gap-4 md:grid-cols-[minmax(200px,280px)_1fr]">
        {lockedCommand ? <LockedNote lock={lockedCommand} className="md:col-span-2" /> : null}
        <Field
          {...FORM_FIELDS.handler}
          error={err('handler') ?? err('steps.0.handler')}
          hint={
            handlerHint || (!lockedCommand && refusedHandlers.length) ? (
            <>
              {handlerHint || null}
              {!lockedCommand && refusedHandlers.length ? (
                <span data-testid="handler-restrictions" className="block">
                  Not available to you: {refusedHandlers.map((x) => `${x.h} (${x.p!.reason})`).join('; ')}.
                </span>
              ) : null}
            </>
            ) : undefined
          }
        >
          <NativeSelect {...controlProps(FORM_FIELDS.handler.id, err('handler'))} {...text('handler')} disabled={!!lockedCommand} title={lockedCommand?.reason}>
            {v.handler === '' ? (
              <option value="" disabled>
                Choose a handler…
              </option>
            ) : null}
            {handlerOptions.map((h) => {
              const refused = mayChoose(h);
              return (
                <option key={h} value={h} disabled={!!refused} title={catalogue.get(h)?.description}>
                  {refused ? `${h} (${refused.level === 'system' ? 'system jobs only' : 'admin only'})` : h}
                  {unavailableNote(catalogue.get(h), zone) ? ' (unavailable)' : ''}
                </option>
              );
            })}
          </NativeSelect>
        </Field>
        <Field {...FORM_FIELDS.payload} error={err('payload')} hint="JSON object handed to the handler (builtin.sleep: {&quot;ms&quot;: 500}; http: method, url, headers, body)">
          {lockedCommand ? (
            <Textarea {...controlProps(FORM_FIELDS.payload.id, err('payload'))} {...text('payload')} mono rows={6} spellCheck={false} disabled title={lockedCommand.reason} />
          ) : (
            <PayloadEditor handler={v.handler} text={v.payload} onText={(t) => set('payload', t)} serverErrors={payloadErrors}>
              <Textarea {...controlProps(FORM_FIELDS.payload.id, err('payload'))} {...text('payload')} mono rows={6} spellCheck={false} />
            </PayloadEditor>
          )}
        </Field>
      </CardBody>
    ) : null}
  </Card>
  );
}
