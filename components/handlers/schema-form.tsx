'use client';
// A form for a payload from its handler's input JSON Schema (as workers advertise it, made by zod's toJSONSchema),
// and PayloadEditor: that form or the raw JSON, switchable, both editing the same JSON text. Validation is
// lib/handlers/payload-schema.ts checkPayload: the same rule the save applies on the server.
import { useId, useMemo, useState, type ReactNode } from 'react';
import { checkPayload, type JsonSchema } from '@/lib/handlers/payload-schema';
import { useHandlerCatalogue } from './use-handler-catalogue';
import { jsonTextProblem } from '@/lib/api/json-guard';
import { objectOrEmpty } from '@/lib/json-object';

type Obj = Record<string, unknown>;

const inputCls =
  'w-full rounded-md border bg-white px-2 py-1 text-[13px] text-slate-900 shadow-xs outline-none focus:border-indigo-500 focus:ring-2 focus:ring-indigo-500/20 disabled:bg-slate-50 disabled:text-slate-500';

function asSchema(v: unknown): JsonSchema {
  return objectOrEmpty(v) as JsonSchema;
}

/** The form kind of a property schema; `json` = edited as a small JSON text (unions, records, arrays of objects…). */
type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'list' | 'object' | 'json';

function kindOf(s: JsonSchema): Kind {
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string')) return 'enum';
  const t = s.type;
  if (t === 'string' || t === 'number' || t === 'integer' || t === 'boolean') return t;
  if (t === 'array') {
    const it = asSchema(s.items).type;
    return it === 'string' || it === 'number' || it === 'integer' ? 'list' : 'json';
  }
  if (t === 'object' && s.properties && typeof s.properties === 'object' && !s.additionalProperties) return 'object';
  return 'json';
}

/** True when `schema` is an object schema the form can show (anything else: raw JSON only). */
export function formable(schema: JsonSchema | null | undefined): schema is JsonSchema {
  return !!schema && schema.type === 'object' && !!schema.properties && typeof schema.properties === 'object';
}

function display(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

type FieldProps = {
  name: string;
  path: string;
  schema: JsonSchema;
  required: boolean;
  value: unknown;
  errors: Record<string, string>;
  readOnly: boolean;
  onChange(v: unknown): void;
  uid: string;
};

function Labelled({ id, label, required, hint, error, path, children }: { id: string; label: string; required: boolean; hint?: string; error?: string; path: string; children: ReactNode }) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-xs font-medium text-slate-700">
        <span className="font-mono">{label}</span>
        {required ? <span className="text-red-600"> *</span> : null}
      </label>
      {children}
      {error ? (
        <p id={`${id}-error`} className="text-xs text-red-600" data-testid={`schema-error-${path}`}>
          {error}
        </p>
      ) : hint ? (
        <p className="text-[11px] text-slate-500">{hint}</p>
      ) : null}
    </div>
  );
}

function SchemaField({ name, path, schema, required, value, errors, readOnly, onChange, uid }: FieldProps) {
  const kind = kindOf(schema);
  const id = `${uid}-${path.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const error = errors[path] ?? Object.entries(errors).find(([p]) => p.startsWith(`${path}.`))?.[1];
  const described = [typeof schema.description === 'string' ? schema.description : '', schema.default !== undefined ? `default ${display(schema.default)}` : '']
    .filter(Boolean)
    .join(' · ');
  // Text as typed (a half-typed number or list stays as typed); the parsed value goes up.
  const [text, setText] = useState(() => (kind === 'list' ? (Array.isArray(value) ? value.map(display).join('\n') : '') : kind === 'json' ? (value === undefined ? '' : JSON.stringify(value, null, 2)) : display(value)));
  const [jsonProblem, setJsonProblem] = useState<string | null>(null);
  const common = {
    id,
    disabled: readOnly,
    'data-testid': `schema-field-${path}`,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${id}-error` : undefined,
    className: `${inputCls} ${error ? 'border-red-500' : 'border-slate-300'}`,
  };
  const placeholder = schema.default !== undefined ? display(schema.default) : required ? '' : 'optional';

  if (kind === 'object') {
    return (
      <fieldset className="space-y-2 rounded-md border border-slate-200 p-2" data-testid={`schema-group-${path}`}>
        <legend className="px-1 font-mono text-xs font-medium text-slate-700">
          {name}
          {required ? <span className="text-red-600"> *</span> : null}
        </legend>
        <ObjectFields schema={schema} value={value && typeof value === 'object' ? (value as Obj) : {}} prefix={path} errors={errors} readOnly={readOnly} uid={uid} onChange={onChange} />
      </fieldset>
    );
  }
  if (kind === 'boolean') {
    return (
      <div className="space-y-1">
        <label className="flex items-center gap-2 text-xs font-medium text-slate-700">
          <input type="checkbox" {...common} className="size-4" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
          <span className="font-mono">{name}</span>
          {required ? <span className="text-red-600">*</span> : null}
        </label>
        {error ? <p className="text-xs text-red-600" data-testid={`schema-error-${path}`}>{error}</p> : described ? <p className="text-[11px] text-slate-500">{described}</p> : null}
      </div>
    );
  }
  let control: ReactNode;
  if (kind === 'enum') {
    control = (
      <select {...common} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}>
        <option value="">{required ? 'Choose…' : '(not set)'}</option>
        {(schema.enum as string[]).map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    );
  } else if (kind === 'number' || kind === 'integer') {
    control = (
      <input
        {...common}
        inputMode={kind === 'integer' ? 'numeric' : 'decimal'}
        value={text}
        placeholder={placeholder}
        onChange={(e) => {
          setText(e.target.value);
          const t = e.target.value.trim();
          // An unparsable number goes up as typed, so the validator names it rather than dropping it.
          // decimal only: Number() would turn `0x10` into 16 and `1e3` into 1000 unseen
          onChange(t === '' ? undefined : /^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(t) ? Number(t) : t);
        }}
      />
    );
  } else if (kind === 'list') {
    const numeric = asSchema(schema.items).type !== 'string';
    control = (
      <textarea
        {...common}
        rows={3}
        value={text}
        placeholder={numeric ? 'one number per line (or comma-separated)' : 'one value per line'}
        className={`${common.className} font-mono text-xs`}
        onChange={(e) => {
          setText(e.target.value);
          const parts = (numeric ? e.target.value.split(/[\n,]/) : e.target.value.split('\n')).map((p) => (numeric ? p.trim() : p)).filter((p) => p !== '');
          onChange(parts.length === 0 ? undefined : numeric ? parts.map((p) => (Number.isFinite(Number(p)) ? Number(p) : p)) : parts);
        }}
      />
    );
  } else if (kind === 'json') {
    control = (
      <textarea
        {...common}
        rows={3}
        value={text}
        placeholder="JSON"
        className={`${common.className} font-mono text-xs`}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() === '') {
            setJsonProblem(null);
            onChange(undefined);
            return;
          }
          try {
            const v: unknown = JSON.parse(e.target.value);
            // a key written twice would silently mean its last value: not taken until fixed
            const duplicate = jsonTextProblem(e.target.value);
            if (duplicate) {
              setJsonProblem(duplicate);
              return;
            }
            onChange(v);
            setJsonProblem(null);
          } catch {
            setJsonProblem('not valid JSON yet');
          }
        }}
      />
    );
  } else {
    control = (
      <input
        {...common}
        value={text}
        placeholder={placeholder}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          onChange(e.target.value === '' && !required ? undefined : e.target.value);
        }}
      />
    );
  }
  return (
    <Labelled id={id} label={name} required={required} hint={described || undefined} error={jsonProblem ?? error} path={path}>
      {control}
    </Labelled>
  );
}

function ObjectFields({ schema, value, prefix, errors, readOnly, uid, onChange }: { schema: JsonSchema; value: Obj; prefix: string; errors: Record<string, string>; readOnly: boolean; uid: string; onChange(v: Obj): void }) {
  const props = asSchema(schema.properties);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return (
    <>
      {Object.entries(props).map(([key, sub]) => {
        const path = prefix ? `${prefix}.${key}` : key;
        return (
          <SchemaField
            key={key}
            name={key}
            path={path}
            schema={asSchema(sub)}
            required={required.has(key)}
            value={value[key]}
            errors={errors}
            readOnly={readOnly}
            uid={uid}
            onChange={(v) => {
              const next = { ...value };
              if (v === undefined) delete next[key];
              else next[key] = v;
              onChange(next);
            }}
          />
        );
      })}
    </>
  );
}

/**
 * Props of {@link SchemaForm}: `schema` an object JSON Schema (see {@link formable}), `value` the payload object,
 * `errors` keyed by path inside the payload (`items.0`), `onChange` gets the whole new payload.
 */
export type SchemaFormProps = { schema: JsonSchema; value: Obj; errors: Record<string, string>; readOnly?: boolean; onChange(v: Obj): void };

/** One control per property (nested objects as groups; unions, records and arrays of objects as small JSON fields). */
export function SchemaForm({ schema, value, errors, readOnly = false, onChange }: SchemaFormProps) {
  const uid = useId().replace(/:/g, '');
  const unknown = Object.keys(value).filter((k) => !(k in asSchema(schema.properties)));
  return (
    <div className="space-y-2" data-testid="schema-form">
      <ObjectFields schema={schema} value={value} prefix="" errors={errors} readOnly={readOnly} uid={uid} onChange={onChange} />
      {unknown.length ? (
        <p className="text-xs text-amber-700" data-testid="schema-unknown-fields">
          Also in the payload, not in the schema: <span className="font-mono">{unknown.join(', ')}</span> (edit them as JSON)
        </p>
      ) : null}
    </div>
  );
}

/**
 * Props of {@link PayloadEditor}: `handler` whose advertised input schema drives the form, `text` the payload JSON
 * text and `onText` to change it, `children` the raw JSON editor (shown in JSON mode, or alone when the handler has
 * no usable schema), `serverErrors` field errors of the last save keyed by path inside the payload.
 */
export type PayloadEditorProps = { handler: string; text: string; onText(text: string): void; readOnly?: boolean; serverErrors?: Record<string, string>; children: ReactNode };

/** The payload of a step: a form from the handler's input schema, or the raw JSON (toggle), over the same text. */
export function PayloadEditor({ handler, text, onText, readOnly = false, serverErrors, children }: PayloadEditorProps) {
  const entry = useHandlerCatalogue().get(handler);
  // A built-in's schema describes config and payload together (lib/handlers/builtin-schemas.ts), not the payload alone: raw JSON.
  const schema = entry?.builtin ? null : entry?.inputSchema;
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const parsed = useMemo((): { ok: true; value: Obj } | { ok: false } => {
    if (text.trim() === '') return { ok: true, value: {} };
    try {
      const v = JSON.parse(text) as unknown;
      return v && typeof v === 'object' && !Array.isArray(v) ? { ok: true, value: v as Obj } : { ok: false };
    } catch {
      return { ok: false };
    }
  }, [text]);
  const check = useMemo(() => (formable(schema) && parsed.ok ? checkPayload(schema, parsed.value, '') : null), [schema, parsed]);
  if (!formable(schema)) return <>{children}</>;
  const errors = { ...(serverErrors ?? {}), ...(check && !check.ok ? check.fields : {}) };
  const tab = (m: 'form' | 'json', label: string) => (
    <button
      type="button"
      onClick={() => setMode(m)}
      aria-pressed={mode === m}
      data-testid={`payload-mode-${m}`}
      className={`rounded px-2 py-0.5 text-[11px] ${mode === m ? 'bg-indigo-100 font-medium text-indigo-900' : 'text-slate-600 hover:bg-slate-100'}`}
    >
      {label}
    </button>
  );
  return (
    <div className="space-y-2" data-testid="payload-editor">
      <div className="flex items-center gap-1" role="group" aria-label="Payload editor">
        {tab('form', 'Form')}
        {tab('json', 'JSON')}
        {check ? (
          <span className={`ml-auto text-[11px] ${check.ok ? 'text-emerald-700' : 'text-red-700'}`} data-testid="payload-check">
            {check.ok ? 'fits the handler input' : `${Object.keys(check.fields).length} field${Object.keys(check.fields).length === 1 ? '' : 's'} to fix`}
          </span>
        ) : null}
      </div>
      {mode === 'json' ? (
        children
      ) : parsed.ok ? (
        // Remount when the text changed elsewhere (JSON mode), so every field starts from the current payload.
        <SchemaForm key={mode} schema={schema} value={parsed.value} errors={errors} readOnly={readOnly} onChange={(v) => onText(JSON.stringify(v, null, 2))} />
      ) : (
        <p className="text-xs text-red-700">The payload is not a JSON object; fix it in the JSON view first.</p>
      )}
      {mode === 'json' && check && !check.ok ? (
        <ul className="list-disc pl-4 text-xs text-red-700">
          {Object.entries(check.fields).map(([p, m]) => (
            <li key={p}>
              <span className="font-mono">{p || '(payload)'}</span>: {m}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
