'use server';

import { redirect } from 'next/navigation';
import { LoginInput } from '@/lib/api/schemas';
import { signIn } from '@/app/_lib/session';
import { toActionError, zodFields } from '../_actions/result';
import { z } from 'zod';
import { actionArgs, publicAction } from '../_actions/define-action';
import { safeNextPath } from '@/lib/auth/next-path';

/** Form state of the login page: the email is echoed back so a failed attempt keeps it. */
export type LoginState = { email: string; error?: string; code?: string; fields?: Record<string, string> };

/**
 * Sign in: parse with lib/api LoginInput, then app/_lib/session `signIn` (lib/auth login:
 * bcrypt check, rate limit per account+client and per client; sets the httpOnly session
 * cookie). On success the browser goes to `next` (same-origin paths only, lib/auth
 * next-path) or the overview.
 */
export const signInAction = publicAction(
  'session.signIn',
  actionArgs(['state', z.custom<LoginState>(() => true)], ['form', z.instanceof(FormData, { error: 'Must be the sign-in form\'s data' })]),
  async (_prev: LoginState, formData: FormData): Promise<LoginState> => {
  const email = String(formData.get('email') ?? '');
  const parsed = LoginInput.safeParse({ email, password: formData.get('password') ?? '' });
  if (!parsed.success) return { email, error: 'Enter your email and password', fields: zodFields(parsed.error) };
  try {
    await signIn(parsed.data.email, parsed.data.password);
  } catch (error) {
    const r = toActionError(error, 'Sign in');
    return { email, error: r.ok ? undefined : r.error, code: r.ok ? undefined : r.code, fields: r.ok ? undefined : r.fields };
  }
  redirect(safeNextPath(formData.get('next')));
},
  (error): LoginState => ({ email: '', error: error.message, code: error.code, fields: error.fields }),
);
