import type { Metadata } from 'next';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { listApiTokens } from '@/lib/auth/tokens';
import { PageHeader } from '@/components/shell/page-header';
import { ReadOnlyNotice } from '@/components/read-only-notice';
import { TokensPanel } from '@/components/settings/tokens-panel';
import { createTokenAction, revokeTokenAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';

export const metadata: Metadata = { title: 'API tokens' };
export const dynamic = 'force-dynamic';

/** /settings/tokens (admin only): bearer tokens for /api/v1, shown once at creation, revocable. */
export default consolePage(async function TokensPage() {
  const actor = await requireActor('viewer');
  if (actor.role !== 'admin') {
    return (
      <>
        <PageHeader title="API tokens" />
        <ReadOnlyNotice message="Only admins manage API tokens." />
      </>
    );
  }
  const tokens = await listApiTokens(getDb(), actor);
  return (
    <>
      <PageHeader title="API tokens" description="Bearer tokens for /api/v1 (Authorization: Bearer tf_…). A token acts with its role; it is shown once and stored hashed." />
      <TokensPanel tokens={tokens} create={createTokenAction} revoke={revokeTokenAction} />
    </>
  );
});
