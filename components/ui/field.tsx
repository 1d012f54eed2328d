import * as React from 'react';
import { cn } from './cn';

export type FieldProps = {
  /** id of the control; the <label> points at it and the error is linked with aria-describedby. */
  id: string;
  label: React.ReactNode;
  /** Server- or client-side error for this field, shown directly under the control. */
  error?: string;
  hint?: React.ReactNode;
  className?: string;
  children: React.ReactNode;
};

/**
 * A labelled form row. The child control should carry `id`, `aria-invalid={!!error}` and
 * `aria-describedby={errorId(id)}` (see `controlProps`).
 */
export function Field({ id, label, error, hint, className, children }: FieldProps) {
  return (
    <div className={cn('flex flex-col gap-1', className)}>
      <label htmlFor={id} className="text-xs font-medium text-zinc-700">
        {label}
      </label>
      {children}
      {error ? (
        <p id={errorId(id)} role="alert" className="text-xs text-red-600" data-testid={`field-error-${id}`}>
          {error}
        </p>
      ) : hint ? (
        <p id={hintId(id)} className="text-xs text-zinc-500" data-testid={`field-hint-${id}`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

export function errorId(id: string): string {
  return `${id}-error`;
}

/** id of a Field's hint, for a control's `aria-describedby` while no error replaces the hint. */
export function hintId(id: string): string {
  return `${id}-hint`;
}

/** Accessibility props for a control inside <Field>. */
export function controlProps(id: string, error?: string) {
  return { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? errorId(id) : undefined };
}
