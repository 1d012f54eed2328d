/**
 * The overview's run counts against real PostgreSQL leave out schedule runs cancelled before their
 * slot (docs/on-time.md "Look-ahead firing"): runs created ahead and cancelled by a pause or edit, or
 * withdrawn by a run that came first. An operator's own cancel still counts.
 */
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../lib/auth/actor.ts';
import { cancelRun, triggerRun } from '../../lib/engine/index.ts';
import { runTick } from '../../lib/engine/tick/run-tick.ts';
import { pauseJob, updateJob } from '../../lib/jobs/index.ts';
import { getOverview } from '../../lib/stats/get-overview.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob } from './worker-fixtures.ts';

const t = useTestDatabase();
const alice: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000001', name: 'alice@example.com', role: 'operator' };
const S = new Date('2026-12-05T00:00:00.000Z');
const ms = (n: number) => new Date(S.getTime() + n);

describe('overview: runs cancelled before their slot', () => {
  it('are left out of cancelled and total, and counted apart; an operator cancel still counts', async () => {
    const paused = await insertJob(t.db, { key: 'ov-paused', cron: '*/5 * * * * *', nextRunAt: ms(5000) });
    const edited = await insertJob(t.db, { key: 'ov-edited', cron: '*/5 * * * * *', nextRunAt: ms(5000) });
    const withdrawn = await insertJob(t.db, { key: 'ov-withdrawn', cron: '*/5 * * * * *', nextRunAt: ms(5000) });
    expect((await runTick(t.db, { limit: 100, lookaheadMs: 3000 }, ms(2500))).ahead).toBe(3);

    await pauseJob(t.db, paused, alice, {}, ms(3000));
    await updateJob(t.db, edited, { expectedVersion: 1, payload: { v: 2 } }, alice, ms(3000));
    const manual = await triggerRun(t.db, { jobId: withdrawn, trigger: 'manual', triggeredBy: 'alice@example.com', scheduledFor: ms(3000) }, ms(3000));
    const { rows: ahead } = await t.pool.query<{ error: string }>(`SELECT error FROM runs WHERE status = 'cancelled' ORDER BY error`);
    expect(ahead.map((r) => r.error.replace(/run \S+ by/, 'run <id> by'))).toEqual([
      'cancelled before its slot: job edited by alice@example.com',
      'cancelled before its slot: job paused by alice@example.com',
      'withdrawn before its slot: a manual run <id> by alice@example.com came first; the slot fires again when due',
    ]);
    // The operator cancels the manual run: a real outcome.
    await cancelRun(t.db, manual.run.id, 'alice@example.com', ms(3500));

    // After the slots, the cancelled-ahead runs sit inside the 24 h window.
    const o = await getOverview(t.db, ms(60_000));
    expect(o.runs24h).toMatchObject({ cancelled: 1, total: 1, cancelledBeforeSlot: 3 });
    // The edited job fires its slot again: that run counts, its cancelled-ahead twin does not.
    await runTick(t.db, { limit: 100, lookaheadMs: 3000 }, ms(5000));
    const later = await getOverview(t.db, ms(60_000));
    expect(later.runs24h.cancelled).toBe(1);
    expect(later.runs24h.cancelledBeforeSlot).toBe(3);
    expect(later.runs24h.total).toBe(later.runs24h.cancelled + later.runs24h.pending + later.runs24h.skipped + later.runs24h.success + later.runs24h.failed + later.runs24h.timeout + later.runs24h.running);
    expect(later.runs24h.total).toBeGreaterThan(1);
  });
});
