import type { Metadata } from 'next';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { getStatsTimeZone } from '@/lib/stats/current-zone';
import { listTimeZones } from '@/lib/schedule/timezone';
import { PageHeader } from '@/components/shell/page-header';
import { ReadOnlyNotice } from '@/components/read-only-notice';
import { StatsZoneForm } from '@/components/settings/stats-zone-form';
import { setStatsZoneAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';

export const metadata: Metadata = { title: 'Stats day' };
export const dynamic = 'force-dynamic';

/** /settings/stats (admin only): the zone that cuts the stats dashboards into days, one value for every process. */
export default consolePage(async function StatsZonePage() {
  const actor = await requireActor('viewer');
  const current = await getStatsTimeZone(getDb());
  if (actor.role !== 'admin') {
    return (
      <>
        <PageHeader title="Stats day" description={`Stats days are cut in ${current}.`} />
        <ReadOnlyNotice message="Only admins change the stats day zone." />
      </>
    );
  }
  return (
    <>
      <PageHeader title="Stats day" description="The time zone whose midnight starts a stats day, for every worker and dashboard." />
      <StatsZoneForm current={current} zones={listTimeZones()} save={setStatsZoneAction} />
    </>
  );
});
