'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { setStatsTimeZone, type SetStatsTimeZoneResult } from '@/lib/stats/stats-zone';
import { toActionError, type ActionResult } from '@/app/_actions/result';

/** Change the stats day zone (admin): lib/stats setStatsTimeZone, which rebuilds handler_stats_daily in the same transaction. */
export async function setStatsZoneAction(input: unknown): Promise<ActionResult<SetStatsTimeZoneResult>> {
  try {
    const actor = await requireActionActor('admin');
    const r = await setStatsTimeZone(getDb(), input, actor);
    revalidatePath('/settings/stats');
    revalidatePath('/stats');
    return { ok: true, data: r };
  } catch (error) {
    return toActionError(error, 'Change the stats zone');
  }
}
