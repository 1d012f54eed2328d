'use client';
// The job form's input fields bound to one form value (components/jobs/use-job-form.ts): label, hint, and the
// error of the value's API path next to it.
import type * as React from 'react';
import { Field, controlProps } from '../ui/field';
import { Input } from '../ui/input';
import type { JobFormValues } from './form-values';
import type { JobFormState } from './use-job-form';

/** Props of {@link ValueField}: `k` the form value, `path` its API path (for its error); the rest goes to the input. */
export type ValueFieldProps = {
  f: JobFormState;
  id: string;
  label: string;
  path: string;
  k: keyof JobFormValues;
  hint?: React.ReactNode;
  /** classes of the field (label, input, note) */
  className?: string;
  /** classes of the input itself */
  inputClassName?: string;
} & Omit<React.ComponentProps<'input'>, 'id' | 'className' | 'value' | 'onChange'>;

/** A text input bound to one form value, with its label, hint and error. */
export function ValueField({ f, id, label, path, k, hint, className, inputClassName, ...input }: ValueFieldProps) {
  return (
    <Field id={id} label={label} error={f.err(path)} hint={hint} className={className}>
      <Input {...controlProps(id, f.err(path))} {...f.text(k)} className={inputClassName} {...input} />
    </Field>
  );
}

/** A number input bound to one form value (see ValueField). */
export function NumberField(p: ValueFieldProps) {
  return <ValueField {...p} type="number" />;
}
