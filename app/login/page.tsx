import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { getActor } from '@/app/_lib/session';
import { safeNextPath } from '@/lib/auth/next-path';
import { LoginForm } from './login-form';
import { Logo } from '@/components/shell/logo';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

/** Sign-in page. An already signed-in visitor goes straight to the console. */
export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  if (await getActor()) redirect(safeNextPath(next));
  return (
    <main className="flex min-h-screen items-center justify-center bg-zinc-50 px-4">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center justify-center gap-2">
          <Logo className="size-7" />
          <span className="text-lg font-semibold tracking-tight">Tickflow</span>
        </div>
        <div className="rounded-lg border border-zinc-200 bg-white p-6 shadow-sm">
          <h1 className="mb-1 text-[15px] font-semibold">Sign in to the console</h1>
          <p className="mb-5 text-xs text-zinc-500">Use your Tickflow account.</p>
          <LoginForm next={safeNextPath(next)} />
        </div>
      </div>
    </main>
  );
}
