'use client';
// The job form's building blocks: a section card, and input fields bound to one form value
// (components/jobs/use-job-form.ts) with label, hint, and the error of the value's API path next to it.
import type * as React from 'react';
import { Card, CardBody, CardHeader } from '../ui/card';
import { Field, controlProps } from '../ui/field';
import { Input } from '../ui/input';
import type { JobFormValues } from './form-values';
import { FORM_FIELDS, type FormPath } from './job-form-paths';
import type { JobFormState } from './use-job-form';

/**
 * Props of {@link ValueField}: `k` the form value, `path` its API path (for its error; the control's id and
 * label come from FORM_FIELDS, `label` replaces the label); the rest goes to the input.
 */
export type ValueFieldProps = {
  f: JobFormState;
  label?: string;
  path: FormPath;
  k: keyof JobFormValues;
  hint?: React.ReactNode;
  /** classes of the field (label, input, note) */
  className?: string;
  /** classes of the input itself */
  inputClassName?: string;
} & Omit<React.ComponentProps<'input'>, 'id' | 'className' | 'value' | 'onChange'>;

/** A text input bound to one form value, with its label, hint and error. */
export function ValueField({ f, label, path, k, hint, className, inputClassName, ...input }: ValueFieldProps) {
  const id = FORM_FIELDS[path].id;
  label ??= FORM_FIELDS[path].label;
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

/** One section of the job form: a card with a title, an optional description and its fields (`className`: the body's layout). */
export function FormSection({ title, description, className, children }: { title: string; description?: string; className?: string; children: React.ReactNode }) {
  return (
    <Card>
      <CardHeader title={title} description={description} />
      <CardBody className={className}>{children}</CardBody>
    </Card>
  );
}
