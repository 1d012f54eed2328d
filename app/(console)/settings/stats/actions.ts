'use server';

import { z } from 'zod';
import { actionArgs, defineAction } from '@/app/_actions/define-action';
import { setStatsTimeZone } from '@/lib/stats/stats-zone';

/** Change the stats day zone (admin): lib/stats setStatsTimeZone, which rebuilds handler_stats_daily in the same transaction. */
export const setStatsZoneAction = defineAction('stats.setZone', 'Change the stats zone', actionArgs(['input', z.unknown()]), ({ db, actor }, input: unknown) => setStatsTimeZone(db, input, actor), {
  revalidate: () => ['/settings/stats', '/stats'],
});
