/**
 * The command line of `npm run stats:rebuild` (scripts/stats-rebuild.ts), read before any database
 * is opened. Every argument is checked: an option the command does not know (`--aply` for `--apply`),
 * a `--from` or `--to` without a date, or a range that ends before it starts would otherwise
 * change what the command does without a word — a typo of `--apply` would report the drift and
 * write nothing, and a reversed range would compare no day at all and print "no drift".
 */
import { isIsoDate, type IsoDate } from './dates.ts';

export const STATS_REBUILD_USAGE = 'usage: npm run stats:rebuild [-- --from YYYY-MM-DD --to YYYY-MM-DD --apply --json]';

export interface StatsRebuildArgs {
  from?: IsoDate;
  to?: IsoDate;
  apply: boolean;
  json: boolean;
}

export type ParsedStatsRebuildArgs = { ok: true; args: StatsRebuildArgs } | { ok: false; help: boolean; message?: string };

/** Reads `argv` (without node and the script). `--from D` and `--from=D` both work; dates are checked here. */
export function parseStatsRebuildArgs(argv: readonly string[]): ParsedStatsRebuildArgs {
  const args: StatsRebuildArgs = { apply: false, json: false };
  const fail = (message: string): ParsedStatsRebuildArgs => ({ ok: false, help: false, message });
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    if (name === '--from' || name === '--to') {
      const value = eq > 0 && a.startsWith('--') ? a.slice(eq + 1) : argv[++i];
      if (value === undefined || value.startsWith('--')) return fail(`${name} needs a date YYYY-MM-DD`);
      if (!isIsoDate(value)) return fail(`${name} must be a date YYYY-MM-DD, got ${value}`);
      args[name === '--from' ? 'from' : 'to'] = value;
    } else if (a === '--apply') args.apply = true;
    else if (a === '--json') args.json = true;
    else if (a === '--help' || a === '-h') return { ok: false, help: true };
    else if (a.startsWith('-')) return fail(`unknown option ${a}`);
    else return fail(`unexpected argument ${a}`);
  }
  if (args.from && args.to && args.from > args.to) return fail(`--from ${args.from} is after --to ${args.to}`);
  return { ok: true, args };
}
