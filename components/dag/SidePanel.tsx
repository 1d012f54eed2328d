'use client';
// Side panel of the editor: edits the selected step (every field validated as you type, the error shown under
// the field) or the selected edge (type, delete). Read-only mode shows the same fields disabled.
import { useId, type ReactNode } from 'react';
import { Trash2 } from 'lucide-react';
import { DEP_TYPES, type DepType } from '@/lib/dag';
import { EDGE_STYLES, STEP_FIELD_LABELS, type StepField, type StepNodeData } from './model';
import { PayloadEditor } from '../handlers/schema-form';
import { unavailableNote, useHandlerCatalogue } from '../handlers/use-handler-catalogue';
import { useDisplayZone } from '../display-zone';

const inputCls =
  'w-full rounded-md border bg-white px-2 py-1 text-[13px] text-slate-900 shadow-xs outline-none focus:border-indigo-500 focus:ring-2 focus:ring-indigo-500/20 disabled:bg-slate-50 disabled:text-slate-500';

function Field({ label, error, hint, children, htmlFor }: { label: string; error?: string; hint?: string; children: ReactNode; htmlFor: string }) {
  return (
    <div className="space-y-1">
      <label htmlFor={htmlFor} className="block text-xs font-medium text-slate-700">
        {label}
      </label>
      {children}
      {error ? (
        <p id={`${htmlFor}-error`} className="text-xs text-red-600" data-testid={`dag-field-error-${htmlFor.split('-').pop()}`}>
          {error}
        </p>
      ) : hint ? (
        <p className="text-[11px] text-slate-500">{hint}</p>
      ) : null}
    </div>
  );
}

/** Props of {@link StepPanel}: the selected step's data, its errors (client + server), handlers for the select. */
export type StepPanelProps = {
  data: StepNodeData;
  errors: Partial<Record<StepField, string>>;
  handlers: readonly string[];
  readOnly: boolean;
  onChange(patch: Partial<StepNodeData>): void;
  onDelete(): void;
};

/** Editor for one step: key, name, handler, payload JSON, config JSON, timeout, retries, resource key. */
export function StepPanel({ data, errors, handlers, readOnly, onChange, onDelete }: StepPanelProps) {
  const uid = useId().replace(/:/g, '');
  const id = (f: string) => `${uid}-${f}`;
  const catalogue = useHandlerCatalogue();
  const zone = useDisplayZone();
  const options = handlers.includes(data.handler) || data.handler === '' ? handlers : [data.handler, ...handlers];
  const ctl = (f: StepField) => ({
    id: id(f),
    disabled: readOnly,
    'aria-invalid': errors[f] ? true : undefined,
    'aria-describedby': errors[f] ? `${id(f)}-error` : undefined,
    className: `${inputCls} ${errors[f] ? 'border-red-500' : 'border-slate-300'}`,
  });
  return (
    <div className="space-y-3" data-testid="dag-step-panel">
      <div className="flex items-center justify-between">
        <h3 className="text-sm font-semibold text-slate-900">Step</h3>
        {!readOnly ? (
          <button type="button" onClick={onDelete} className="inline-flex items-center gap-1 rounded-md px-2 py-1 text-xs text-red-700 hover:bg-red-50" data-testid="dag-step-delete">
            <Trash2 className="size-3.5" /> Delete step
          </button>
        ) : null}
      </div>
      <Field label={STEP_FIELD_LABELS.key} htmlFor={id('key')} error={errors.key} hint="Unique in this job; letters, digits, . _ -">
        <input {...ctl('key')} value={data.key} onChange={(e) => onChange({ key: e.target.value })} spellCheck={false} autoComplete="off" className={`${ctl('key').className} font-mono`} />
      </Field>
      <Field label={STEP_FIELD_LABELS.name} htmlFor={id('name')} error={errors.name}>
        <input {...ctl('name')} value={data.name} onChange={(e) => onChange({ name: e.target.value })} placeholder="optional" />
      </Field>
      <Field label={STEP_FIELD_LABELS.handler} htmlFor={id('handler')} error={errors.handler} hint={[catalogue.get(data.handler)?.description, unavailableNote(catalogue.get(data.handler), zone)].filter(Boolean).join(' · ') || undefined}>
        <select {...ctl('handler')} value={data.handler} onChange={(e) => onChange({ handler: e.target.value })} className={`${ctl('handler').className} font-mono`}>
          {data.handler === '' ? <option value="">Choose a handler…</option> : null}
          {options.map((h) => (
            <option key={h} value={h}>
              {h}
              {handlers.includes(h) ? (unavailableNote(catalogue.get(h), zone) ? ' (unavailable)' : '') : ' (no worker reports it)'}
            </option>
          ))}
        </select>
      </Field>
      <Field label={STEP_FIELD_LABELS.payload} htmlFor={id('payload')} error={errors.payload} hint="Merged with the run's payload">
        <PayloadEditor handler={data.handler} text={data.payloadText} onText={(payloadText) => onChange({ payloadText })} readOnly={readOnly}>
          <textarea {...ctl('payload')} rows={5} value={data.payloadText} onChange={(e) => onChange({ payloadText: e.target.value })} spellCheck={false} className={`${ctl('payload').className} font-mono text-xs`} />
        </PayloadEditor>
      </Field>
      <Field label={STEP_FIELD_LABELS.config} htmlFor={id('config')} error={errors.config} hint="Handler settings, e.g. the sql executor's connection; credentials as ${{ secrets.NAME }} (held by the workers)">
        <textarea {...ctl('config')} rows={4} value={data.configText} onChange={(e) => onChange({ configText: e.target.value })} spellCheck={false} className={`${ctl('config').className} font-mono text-xs`} />
      </Field>
      <div className="grid grid-cols-2 gap-2">
        <Field label={STEP_FIELD_LABELS.timeoutSeconds} htmlFor={id('timeoutSeconds')} error={errors.timeoutSeconds} hint="Blank: job policy">
          <input {...ctl('timeoutSeconds')} inputMode="numeric" value={data.timeoutText} onChange={(e) => onChange({ timeoutText: e.target.value })} placeholder="inherit" />
        </Field>
        <Field label={STEP_FIELD_LABELS.maxRetries} htmlFor={id('maxRetries')} error={errors.maxRetries} hint="Blank: job policy">
          <input {...ctl('maxRetries')} inputMode="numeric" value={data.retriesText} onChange={(e) => onChange({ retriesText: e.target.value })} placeholder="inherit" />
        </Field>
      </div>
      <Field label={STEP_FIELD_LABELS.resourceKey} htmlFor={id('resourceKey')} error={errors.resourceKey} hint="Tasks sharing it never run at the same time, across all runs">
        <input {...ctl('resourceKey')} value={data.resourceKey} onChange={(e) => onChange({ resourceKey: e.target.value })} placeholder="none" spellCheck={false} className={`${ctl('resourceKey').className} font-mono`} />
      </Field>
    </div>
  );
}

/** Props of {@link EdgePanel}. */
export type EdgePanelProps = { from: string; to: string; type: DepType; readOnly: boolean; onType(t: DepType): void; onDelete(): void };

/** Editor for one edge: its dependency type (with the rule it means) and a delete button. */
export function EdgePanel({ from, to, type, readOnly, onType, onDelete }: EdgePanelProps) {
  const uid = useId().replace(/:/g, '');
  return (
    <div className="space-y-3" data-testid="dag-edge-panel">
      <h3 className="text-sm font-semibold text-slate-900">Dependency</h3>
      <p className="font-mono text-[13px] text-slate-800">
        {from} <span className="text-slate-400">→</span> {to}
      </p>
      <Field label="Type" htmlFor={`${uid}-type`} hint={EDGE_STYLES[type].hint}>
        <select id={`${uid}-type`} className={`${inputCls} border-slate-300`} value={type} disabled={readOnly} onChange={(e) => onType(e.target.value as DepType)} data-testid="dag-edge-type-select">
          {DEP_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </Field>
      {!readOnly ? (
        <button type="button" onClick={onDelete} className="inline-flex items-center gap-1 rounded-md border border-red-200 px-2 py-1 text-xs text-red-700 hover:bg-red-50" data-testid="dag-edge-delete">
          <Trash2 className="size-3.5" /> Delete dependency
        </button>
      ) : null}
    </div>
  );
}
