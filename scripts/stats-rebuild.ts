/**
 * `npm run stats:rebuild [-- --from YYYY-MM-DD --to YYYY-MM-DD --apply --json]`
 *
 * Recomputes handler_stats_daily from detail rows (task_logs + tasks) with the engine's
 * counting rule (lib/stats/rebuild-stats.ts) and prints every difference; none is expected,
 * because the engine updates the table in the same transaction that finishes a task.
 * `--apply` replaces the range's rows with the recomputation. Exit code 0 = no drift (or
 * applied), 2 = drift found without --apply, 1 = error.
 *
 * Without DATABASE_URL it needs the data directory of an `npm start` (TICKFLOW_DATA_DIR, default
 * `.tickflow`), and with any database, Tickflow's schema up to date; otherwise it says what to do
 * and exits 1.
 *
 * Default range: the retention window (TICKFLOW_RETENTION_DAYS - 1 days back, default 29) up to
 * today in the database's stats zone setting — older days have lost their detail rows to retention, so
 * "drift" there only means "history deleted", never a bug.
 */
import { createPrismaClient } from '../lib/db.ts';
import { addDays, statDateOf } from '../lib/stats/dates.ts';
import { rebuildStats } from '../lib/stats/rebuild-stats.ts';
import { getStatsTimeZone } from '../lib/stats/current-zone.ts';
import { embeddedDataExists, noDatabaseMessage, resolveDatabase } from '../lib/infra/database-url.ts';
import { pendingMigrations } from '../lib/infra/migrate.ts';
import { parseStatsRebuildArgs, STATS_REBUILD_USAGE, type StatsRebuildArgs } from '../lib/stats/rebuild-args.ts';

/**
 * DATABASE_URL; else the embedded server of this checkout already running (a running `npm start`'s, on the
 * port it listens on); else the embedded server started just for this command and stopped after it.
 * Never stops a server that something else is using (lib/infra/database-url.ts resolveDatabase `reuseRunning`).
 */
function openDatabase(): Promise<{ url: string; stop(): Promise<unknown> }> {
  return resolveDatabase((line) => console.error(line), { reuseRunning: true });
}

/** The checked arguments, or the usage (exit 0 for --help, 1 for a refused argument) before any database is opened. */
function readArgs(): StatsRebuildArgs {
  const parsed = parseStatsRebuildArgs(process.argv.slice(2));
  if (parsed.ok) return parsed.args;
  if (parsed.message) console.error(`stats:rebuild: ${parsed.message}`);
  console.error(STATS_REBUILD_USAGE);
  process.exit(parsed.help ? 0 : 1);
}

async function main(): Promise<number> {
  const args = readArgs();
  // Nothing to check in a data directory no `npm start` ever used (or another one than it uses):
  // starting an empty database there would report "no drift" about nothing.
  if (!process.env.DATABASE_URL && !embeddedDataExists()) throw new Error(`stats:rebuild: ${noDatabaseMessage('npm run stats:rebuild')}`);
  const resolved = await openDatabase();
  const pending = await pendingMigrations(resolved.url).catch(async (e: unknown) => {
    await resolved.stop();
    throw e;
  });
  if (pending.length) {
    await resolved.stop();
    throw new Error(
      `stats:rebuild: this database lacks ${pending.length} of Tickflow's migrations (the first: ${pending[0]}); run \`npm run migrate\` (or \`npm start\`) on it first`,
    );
  }
  // No query timeout (TICKFLOW_DB_QUERY_TIMEOUT_MS): a rebuild over the whole retention window of a
  // large installation is one long aggregate, run by an operator who can stop it with Ctrl-C.
  const db = createPrismaClient(resolved.url, 2, { queryTimeoutMs: 0 });
  try {
    // The stats zone setting of the database, never this shell's TICKFLOW_STATS_TZ.
    const tz = await getStatsTimeZone(db);
    const retention = Math.max(1, Number(process.env.TICKFLOW_RETENTION_DAYS ?? 30) || 30);
    const to = args.to ?? statDateOf(new Date(), tz);
    const from = args.from ?? addDays(to, -(retention - 1));
    // A --from alone may lie after today's default end: an empty range would report "no drift".
    if (from > to) throw new Error(`stats:rebuild: --from ${from} is after the range's end ${to}${args.to ? '' : ' (today in the stats zone)'}`);
    const r = await rebuildStats(db, { from, to, apply: args.apply, timeZone: tz });
    if (args.json) {
      console.log(JSON.stringify(r, null, 2));
    } else {
      console.log(`handler_stats_daily ${r.from}..${r.to} (${r.timeZone}): ${r.storedRows} stored rows, ${r.computedRows} recomputed from detail rows`);
      if (!r.drift.length) console.log('no drift');
      for (const d of r.drift) {
        console.log(`DRIFT ${d.date} ${d.handler}: ${d.fields.join(', ')}`);
        for (const f of d.fields) {
          if (f === 'row') console.log(`  row ${d.stored ? 'stored only' : 'missing from table'}`);
          else console.log(`  ${f}: stored ${JSON.stringify(d.stored?.[f as keyof typeof d.stored])} computed ${JSON.stringify(d.computed?.[f as keyof typeof d.computed])}`);
        }
      }
      if (r.applied) console.log(`applied: ${r.computedRows} rows written for ${r.from}..${r.to}`);
    }
    return r.drift.length && !r.applied ? 2 : 0;
  } finally {
    await db.$disconnect();
    await resolved.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
