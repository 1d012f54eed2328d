'use client';
// State of the job form (components/jobs/job-form.tsx): the values as typed, client and server field errors, and
// the submit that validates, trims the edit to what changed and calls the server action.
import * as React from 'react';
import { useActionState, startTransition } from 'react';
import { useRouter } from 'next/navigation';
import { useToast } from '../ui/toast';
import { useHandlerCatalogue } from '../handlers/use-handler-catalogue';
import { useUser } from '../role';
import { mayUsePrivilege, stepPrivilege, systemIdentityMessage, type HandlerPrivilege } from '@/lib/jobs/handler-permissions';
import { EMPTY_JOB_FORM, submitErrors, toJobInput, type JobFormValues } from './form-values';
import { useDisplayZone } from '../display-zone';
import { FORM_FIELDS, fieldLabel, formField, inFormOrder } from './job-form-paths';
import { withFieldErrors } from '@/lib/api/validation';
import type { JobFormProps, JobFormResult } from './job-form';
import { objectOrEmpty } from '@/lib/json-object';
import { unreadableInputMessage } from '../ui/unreadable-input';
import { useUnsavedChangesGuard } from '../unsaved-changes';

const LEAVE_MESSAGE = 'The job form has unsaved changes. Leave and discard them?';

function jsonObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return objectOrEmpty(v);
  } catch {
    return {};
  }
}

/**
 * The form's inputs holding text the browser cannot read, by API path (components/ui/unreadable-input.ts): a number
 * (`1e400` is beyond a double, `-` or `1e` are unfinished) or a date and time with a part left empty. Such an input's
 * value is '' as if it were empty, so the form would send the field's default, or no window end at all.
 */
function unreadableInputs(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, { id }] of Object.entries(FORM_FIELDS)) {
    const message = unreadableInputMessage(form.querySelector(`#${CSS.escape(id)}`));
    if (message) out[path] = message;
  }
  return out;
}

/**
 * Focuses the topmost field named by `errors` and scrolls it to the middle of the view: a field scrolled
 * only into view would sit at the bottom edge, under the sticky Save bar (components/jobs/job-form-sections.tsx
 * FormFooter), with its error hidden.
 */
function focusFirstError(errors: Record<string, string>) {
  for (const p of inFormOrder(errors)) {
    const el = document.getElementById(formField(p)?.id ?? p);
    if (el) {
      el.focus({ preventScroll: true });
      el.scrollIntoView({ block: 'center' });
      return;
    }
  }
}

/**
 * The job form's state: values `v` and `set`/`text` to change them, `err(path)` for a field's message (client check
 * first, then the server's), the errors that stopped the last send (`clientErrors`), the action `state`/`pending`, a 409
 * `conflict`, server errors with no field of their own (`orphan`), and `onSubmit`.
 */
export function useJobForm({ mode, initial, handlers, submit, expectedVersion, privilegedHandlers = [], commandLock = null }: Pick<JobFormProps, 'mode' | 'handlers' | 'submit' | 'expectedVersion' | 'privilegedHandlers' | 'commandLock'> & { initial: JobFormValues }) {
  // A new job's zone starts as the operator's display zone (the one the top bar names and every time is written in),
  // not UTC; on a first visit the browser's zone is only known after hydration, so the field follows the display
  // zone until the operator changes it.
  const displayZone = useDisplayZone();
  const followsDisplayZone = React.useRef(mode === 'create' && initial === EMPTY_JOB_FORM);
  const [v, setV] = React.useState<JobFormValues>(() => (followsDisplayZone.current ? { ...initial, timezone: displayZone } : initial));
  // What the form showed before the operator typed: the zone it follows is the console's choice, not an edit.
  const untouched = React.useRef(v);
  React.useEffect(() => {
    if (!followsDisplayZone.current) return;
    untouched.current = { ...untouched.current, timezone: displayZone };
    setV((p) => (p.timezone === displayZone ? p : { ...p, timezone: displayZone }));
  }, [displayZone]);
  // Executor permissions (lib/jobs/handler-permissions.ts, the rule the server applies):
  // handlers the user may not put on a job are disabled, and on a job that already runs
  // one, what it runs and where (its routing) are read-only, with the reason shown.
  const user = useUser();
  const who = { kind: 'user' as const, role: user?.role ?? 'viewer' };
  const privilegeOf = (h: string, payload?: string): HandlerPrivilege | null => stepPrivilege({ handler: h, payload: payload ? jsonObject(payload) : {} }, {}, privilegedHandlers);
  const initialPrivilege = mode === 'edit' && initial.singleStep ? privilegeOf(initial.handler, initial.payload) : null;
  // the server's answer over every step (a DAG's too) when it gave one, else the one step's
  const lockedCommand = commandLock ?? (initialPrivilege && !mayUsePrivilege(who, initialPrivilege) ? initialPrivilege : null);
  // A system job's key and name are the system's (handler-permissions.ts identityRefusal): read-only, with the reason.
  const identityLock = mode === 'edit' && initial.singleStep && initial.handler.startsWith('system.') ? systemIdentityMessage(initial.handler) : null;
  const refusedHandlers = handlers.map((h) => ({ h, p: privilegeOf(h) })).filter((x) => x.p && !mayUsePrivilege(who, x.p));
  const mayChoose = (h: string) => {
    const p = privilegeOf(h);
    return !p || mayUsePrivilege(who, p) || h === initial.handler ? null : p;
  };
  const [clientErrors, setClientErrors] = React.useState<Record<string, string>>({});
  // Why the edit was made: stored on the new version (the Versions tab's Reason column).
  const [reason, setReason] = React.useState('');
  const { toast } = useToast();
  const router = useRouter();
  // Set once the save went through: the job page it opens must not ask about the input it just stored.
  const [saved, setSaved] = React.useState(false);
  const dirty = !saved && (reason.trim() !== '' || JSON.stringify(v) !== JSON.stringify(untouched.current));
  // The DAG editor's guard (components/unsaved-changes.ts): links, Back and reload ask before the input is dropped.
  useUnsavedChangesGuard(dirty, LEAVE_MESSAGE);
  const [state, dispatch, pending] = useActionState<JobFormResult | null, Record<string, unknown>>(async (_prev, input) => {
    const r = await submit(input);
    if (!r.ok && r.code !== 'validation') toast({ kind: 'error', title: mode === 'create' ? 'Job not created' : 'Job not saved', description: r.error });
    if (r.ok) {
      setSaved(true);
      toast({ kind: 'success', title: mode === 'create' ? 'Job created' : 'Job saved' });
      router.push(`/jobs/${r.data.id}`);
    }
    return r;
  }, null);

  const serverFields = state && !state.ok ? (state.fields ?? {}) : {};
  const err = (path: string): string | undefined => clientErrors[path] ?? serverFields[path];
  const set = <K extends keyof JobFormValues>(k: K, value: JobFormValues[K]) => {
    if (k === 'timezone') followsDisplayZone.current = false;
    setV((p) => ({ ...p, [k]: value }));
  };
  const text = (k: keyof JobFormValues) => ({
    value: v[k] as string,
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => set(k, e.target.value as never),
  });
  const conflict = state && !state.ok && state.code === 'conflict' && mode === 'edit' && !state.fields?.key ? state : null;
  // Errors the form has no field for (e.g. the server's `steps.0.key`) still show in the summary, by label where one
  // exists: those of the form's own check when it stopped the last send, else the server's.
  const orphan = Object.entries(Object.keys(clientErrors).length ? clientErrors : serverFields)
    .filter(([p]) => !formField(p) && !p.startsWith('alarms.channels.'))
    .map(([p, m]) => ({ path: p, label: fieldLabel(p), message: m }));

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const { input, errors: formErrors } = toJobInput(v);
    if (mode === 'edit') {
      input.expectedVersion = expectedVersion;
      if (reason.trim()) input.reason = reason.trim();
      // The handler shorthand replaces the job's steps with one step `main`: only send it when it changed.
      if (v.handler === initial.handler && v.payload.trim() === initial.payload.trim()) {
        delete input.handler;
        delete input.payload;
      }
    }
    // an unreadable number or date would read as an empty field and send the default: its own error wins
    const errors = withFieldErrors(unreadableInputs(e.currentTarget as HTMLFormElement), submitErrors(mode, input, formErrors, new Date(), initial));
    setClientErrors(errors);
    if (Object.keys(errors).length) {
      focusFirstError(errors);
      return;
    }
    startTransition(() => dispatch(input));
  };

  React.useEffect(() => {
    if (state && !state.ok && state.fields) focusFirstError(state.fields);
  }, [state]);

  const handlerOptions = React.useMemo(() => (handlers.includes(v.handler) || !v.handler ? handlers : [v.handler, ...handlers]), [handlers, v.handler]);
  const catalogue = useHandlerCatalogue();
  // Server errors inside the payload (`payload.items.0`), keyed by their path inside it, for the payload form.
  const payloadErrors = Object.fromEntries(Object.entries(serverFields).filter(([p]) => p.startsWith('payload.')).map(([p, m]) => [p.slice('payload.'.length), m]));
  return {
    mode, initial, expectedVersion, v, set, text, err, clientErrors, state, pending, conflict, orphan, onSubmit, handlerOptions, reason, setReason,
    catalogue, payloadErrors, lockedCommand, identityLock, refusedHandlers, mayChoose,
  };
}

/** What {@link useJobForm} returns; every section of the form takes it as `f`. */
export type JobFormState = ReturnType<typeof useJobForm>;
