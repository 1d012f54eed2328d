'use client';

import { useActionState } from 'react';
import { Clock, TriangleAlert } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Field, controlProps } from '@/components/ui/field';
import { signInAction, type LoginState } from './actions';

/** Email + password form; shows bad-credential and rate-limit errors above the fields. */
export function LoginForm({ next }: { next?: string }) {
  const [state, formAction, pending] = useActionState<LoginState, FormData>(signInAction, { email: '' });
  const limited = state.code === 'rate_limited';
  return (
    <form action={formAction} className="space-y-4" noValidate>
      {state.error ? (
        <div role="alert" data-testid="login-error" className={`flex items-start gap-2 rounded-md border px-3 py-2 text-[13px] ${limited ? 'border-amber-200 bg-amber-50 text-amber-900' : 'border-red-200 bg-red-50 text-red-800'}`}>
          {limited ? <Clock className="mt-0.5 size-4 shrink-0" /> : <TriangleAlert className="mt-0.5 size-4 shrink-0" />}
          <span>{state.error}</span>
        </div>
      ) : null}
      <input type="hidden" name="next" value={next ?? ''} />
      <Field id="email" label="Email" error={state.fields?.email}>
        {/* key resets the uncontrolled input to the echoed value after each attempt */}
        <Input key={`e-${state.email}`} {...controlProps('email', state.fields?.email)} name="email" type="email" autoComplete="username" defaultValue={state.email} autoFocus required />
      </Field>
      <Field id="password" label="Password" error={state.fields?.password}>
        <Input {...controlProps('password', state.fields?.password)} name="password" type="password" autoComplete="current-password" required />
      </Field>
      <Button type="submit" variant="primary" className="w-full" disabled={pending}>
        {pending ? 'Signing in…' : 'Sign in'}
      </Button>
    </form>
  );
}
