import type { Metadata } from 'next';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { isDomainError } from '@/lib/errors';
import { listRecycleBin } from '@/lib/jobs/list-jobs';
import { PageHeader } from '@/components/shell/page-header';
import { Card } from '@/components/ui/card';
import { FilterBar, type FilterDef } from '@/components/filter-bar';
import { refusalMessage, refusedFilters } from '@/components/filter-params';
import { Pager, parseTrail } from '@/components/pager';
import { RecycleBinTable } from '@/components/jobs/recycle-bin-table';
import { ErrorPanel } from '@/components/error-panel';
import { purgeJobAction, restoreJobAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';

export const metadata: Metadata = { title: 'Recycle bin' };
export const dynamic = 'force-dynamic';

/** /recycle-bin: deleted jobs with who/when; Restore or Purge. */
const RECYCLE_BIN_FILTERS: FilterDef[] = [{ kind: 'search', name: 'q', label: 'Search', placeholder: 'Key or name' }];

export default consolePage(async function RecycleBinPage({ searchParams }: { searchParams: Promise<{ q?: string; cursor?: string; trail?: string }> }) {
  const sp = await searchParams;
  const actor = await requireActor('viewer');
  let page: Awaited<ReturnType<typeof listRecycleBin>> | null = null;
  let error: string | null = null;
  let refused: Record<string, string> = {};
  try {
    page = await listRecycleBin(getDb(), { q: sp.q || undefined, limit: 50, cursor: sp.cursor || undefined }, actor);
  } catch (e) {
    if (!isDomainError(e)) throw e;
    refused = refusedFilters(e.fields, ['q']);
    error = refusalMessage(e.fields, RECYCLE_BIN_FILTERS, e.message);
  }
  return (
    <>
      <PageHeader title="Recycle bin" description="Deleted jobs stop firing and free their key. Restore brings a job back as it was; purge removes it for good (its runs and logs stay). Old entries are purged automatically." />
      <Card className="overflow-hidden">
        <FilterBar filters={RECYCLE_BIN_FILTERS} refused={refused} />
        {error ? (
          <ErrorPanel message={error} />
        ) : page ? (
          <>
            <RecycleBinTable rows={page.items} restore={restoreJobAction} purge={purgeJobAction} />
            {page.items.length > 0 || sp.cursor ? <Pager basePath="/recycle-bin" params={{ q: sp.q }} cursor={sp.cursor} trail={parseTrail(sp.trail)} nextCursor={page.nextCursor} count={page.items.length} /> : null}
          </>
        ) : null}
      </Card>
    </>
  );
});
