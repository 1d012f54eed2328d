import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { getActor } from '@/app/_lib/session';
import { safeNextPath } from '@/lib/auth/next-path';
import { LoginForm } from './login-form';
import { StandaloneFrame } from '@/components/shell/standalone-frame';
import { consolePage } from '@/app/_lib/page-error';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

/** Sign-in page. An already signed-in visitor goes straight to the console. */
export default consolePage(async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  if (await getActor()) redirect(safeNextPath(next));
  return (
    <StandaloneFrame>
      <h1 className="mb-1 text-[15px] font-semibold">Sign in to the console</h1>
      <p className="mb-5 text-xs text-zinc-500">Use your Tickflow account.</p>
      <LoginForm next={safeNextPath(next)} />
    </StandaloneFrame>
  );
});
