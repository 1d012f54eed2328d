import { LONGEST_TRANSACTION_TIMEOUT_MS, type Db, type PrismaClient, type Prisma } from '../db.ts';
import type { StatsCounters } from './get-daily-stats.ts';
import { mergeStatsSlots } from './merge-slots.ts';
import { queryDetailStats } from './detail-stats-sql.ts';
import { getStatsTimeZone } from './current-zone.ts';
import { addDays, dateColumn, dayStartSql, statDateOf, type IsoDate } from './dates.ts';
import { normaliseBuckets } from './percentiles.ts';

/** One handler_stats_daily row in comparable form (durations/lateness in ms). */
export interface StatsRow extends StatsCounters {
  date: IsoDate;
  handler: string;
  totalDurationMs: number;
  maxDurationMs: number;
  totalLatenessMs: number;
  latenessCount: number;
  durationBuckets: number[];
}

/** A (date, handler) whose stored row differs from the recomputation; `stored`/`computed` null when the row is missing on that side. */
export interface StatsDrift {
  date: IsoDate;
  handler: string;
  stored: StatsRow | null;
  computed: StatsRow | null;
  /** names of the differing fields */
  fields: string[];
}

export interface RebuildResult {
  from: IsoDate;
  to: IsoDate;
  timeZone: string;
  /** rows recomputed from detail rows */
  computedRows: number;
  storedRows: number;
  drift: StatsDrift[];
  /** true when --apply replaced the stored rows of the range with the recomputation */
  applied: boolean;
}

const COMPARED: (keyof StatsRow)[] = ['success', 'failure', 'timeout', 'deadLetter', 'totalDurationMs', 'maxDurationMs', 'totalLatenessMs', 'latenessCount', 'durationBuckets'];

/**
 * Recomputes handler_stats_daily for `from..to` (calendar dates in the stats time zone,
 * inclusive) from task_logs, with the engine's counting rule itself (the SQL fragments of
 * lib/engine/sql/stats-outcome.ts, which the live bookings are built from too). The events:
 * - a finished attempt = a task_logs row `running -> success|failed|timeout` (lease expiries
 *   included; `running -> cancelled` is no event), at its created_at, with the duration its
 *   detail.durationMs recorded (the same expression the engine books) and started_at =
 *   created_at - durationMs for the lateness of first attempts;
 * - a dead task = a task_logs row `* -> dead`;
 * - handler = tasks.handler — the engine stamps the log row and the stats upsert with the same `now`.
 * Index: task_logs_created_idx (created_at) range, then tasks primary key.
 *
 * Runs removed by retention take their logs with them, so only rebuild days whose detail rows
 * still exist (the default range in scripts/stats-rebuild.ts stays inside the retention window).
 */
export async function computeStatsFromDetail(db: Db, p: { from: IsoDate; to: IsoDate; timeZone?: string }): Promise<StatsRow[]> {
  const tz = p.timeZone ?? (await getStatsTimeZone(db));
  // [start of `from`, start of the day after `to`) in the stats zone, computed by the database like the engine's booking
  const [bounds] = await db.$queryRawUnsafe<{ start: Date; end: Date }[]>(
    `SELECT ${dayStartSql('$1::date', '$3::text')} AS start, ${dayStartSql('$2::date + 1', '$3::text')} AS "end"`,
    p.from, p.to, tz,
  );
  const rows = await queryDetailStats(db, { start: bounds!.start, end: bounds!.end, timeZone: tz, granularity: 'day' });
  return rows.map(({ bucket, ...r }) => ({ date: bucket, ...r }));
}

/** The stored handler_stats_daily rows of `from..to`, one per (date, handler) with its slots summed. */
export async function readStoredStats(db: Db, p: { from: IsoDate; to: IsoDate }): Promise<StatsRow[]> {
  const rows = await db.handlerStatsDaily.findMany({
    where: { statDate: { gte: new Date(`${p.from}T00:00:00Z`), lte: new Date(`${p.to}T00:00:00Z`) } },
    orderBy: [{ statDate: 'asc' }, { handler: 'asc' }],
  });
  return mergeStatsSlots(rows).map((r) => ({
    date: dateColumn(r.statDate),
    handler: r.handler,
    success: r.success,
    failure: r.failure,
    timeout: r.timeout,
    deadLetter: r.deadLetter,
    totalDurationMs: Number(r.totalDurationMs),
    maxDurationMs: r.maxDurationMs,
    totalLatenessMs: Number(r.totalLatenessMs),
    latenessCount: r.latenessCount,
    durationBuckets: normaliseBuckets(r.durationBuckets),
  }));
}

/** Pure comparison of stored vs computed rows, keyed by (date, handler). */
export function diffStats(stored: StatsRow[], computed: StatsRow[]): StatsDrift[] {
  const key = (r: StatsRow) => `${r.date}\u0000${r.handler}`;
  const s = new Map(stored.map((r) => [key(r), r]));
  const c = new Map(computed.map((r) => [key(r), r]));
  const out: StatsDrift[] = [];
  for (const k of [...new Set([...s.keys(), ...c.keys()])].sort()) {
    const a = s.get(k) ?? null;
    const b = c.get(k) ?? null;
    const fields = !a || !b ? ['row'] : COMPARED.filter((f) => JSON.stringify(a[f]) !== JSON.stringify(b[f]));
    if (fields.length) out.push({ date: (a ?? b)!.date, handler: (a ?? b)!.handler, stored: a, computed: b, fields });
  }
  return out;
}

/** Longest a rebuild transaction may take (ms); also that of a stats zone change, which rebuilds (stats-zone.ts). */
export const REBUILD_TIMEOUT_MS = LONGEST_TRANSACTION_TIMEOUT_MS;

function isClient(db: Db): db is PrismaClient {
  return '$transaction' in db && typeof (db as PrismaClient).$transaction === 'function';
}

/**
 * Compares handler_stats_daily with a recomputation from detail rows for `from..to` and,
 * with `apply`, replaces the range's rows with the recomputation.
 * - Check only: both reads run in one REPEATABLE READ snapshot, so completions committing
 *   meanwhile (each commits its log row and its stats increment together) cannot show up
 *   as false drift.
 * - Apply: `LOCK TABLE handler_stats_daily IN SHARE ROW EXCLUSIVE MODE` first — completions
 *   that already upserted finish before the lock is granted (and are then visible), later
 *   ones wait and add their increment on top of the rebuilt rows — then delete + insert.
 * Defaults: the last 2 days (stats TZ) ending `now`.
 */
export async function rebuildStats(
  db: Db,
  p: { from?: IsoDate; to?: IsoDate; apply?: boolean; timeZone?: string } = {},
  now: Date = new Date(),
): Promise<RebuildResult> {
  const run = async (tx: Prisma.TransactionClient) => {
    if (p.apply) await tx.$executeRawUnsafe(`LOCK TABLE handler_stats_daily IN SHARE ROW EXCLUSIVE MODE`);
    // The stats zone setting as this transaction sees it (never a per-process variable).
    const tz = p.timeZone ?? (await getStatsTimeZone(tx));
    const to = p.to ?? statDateOf(now, tz);
    const from = p.from ?? addDays(to, -1);
    const stored = await readStoredStats(tx, { from, to });
    const computed = await computeStatsFromDetail(tx, { from, to, timeZone: tz });
    const drift = diffStats(stored, computed);
    if (p.apply && drift.length) {
      await tx.handlerStatsDaily.deleteMany({ where: { statDate: { gte: new Date(`${from}T00:00:00Z`), lte: new Date(`${to}T00:00:00Z`) } } });
      if (computed.length) {
        await tx.handlerStatsDaily.createMany({
          data: computed.map((r) => ({
            statDate: new Date(`${r.date}T00:00:00Z`),
            handler: r.handler,
            success: r.success,
            failure: r.failure,
            timeout: r.timeout,
            deadLetter: r.deadLetter,
            totalDurationMs: BigInt(r.totalDurationMs),
            maxDurationMs: r.maxDurationMs,
            totalLatenessMs: BigInt(r.totalLatenessMs),
            latenessCount: r.latenessCount,
            durationBuckets: r.durationBuckets,
            updatedAt: now,
          })),
        });
      }
    }
    return { from, to, timeZone: tz, computedRows: computed.length, storedRows: stored.length, drift, applied: !!p.apply && drift.length > 0 };
  };
  if (isClient(db)) {
    // A wide range is a long read: 90 days of ten million runs take one to three minutes
    // (docs/operations.md "History at scale"); the bound is only against a stuck transaction.
    return db.$transaction(run, { isolationLevel: p.apply ? 'ReadCommitted' : 'RepeatableRead', timeout: REBUILD_TIMEOUT_MS, maxWait: 10_000 });
  }
  return run(db as Prisma.TransactionClient);
}
