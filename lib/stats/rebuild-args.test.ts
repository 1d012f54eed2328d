import { describe, expect, it } from 'vitest';
import { parseStatsRebuildArgs } from './rebuild-args.ts';

describe('parseStatsRebuildArgs (npm run stats:rebuild)', () => {
  it('reads the documented options, both --from D and --from=D', () => {
    expect(parseStatsRebuildArgs([])).toEqual({ ok: true, args: { apply: false, json: false } });
    expect(parseStatsRebuildArgs(['--from', '2026-12-01', '--to=2026-12-07', '--apply', '--json'])).toEqual({
      ok: true,
      args: { from: '2026-12-01', to: '2026-12-07', apply: true, json: true },
    });
  });

  it('refuses an option it does not know: a typo of --apply must not report drift and write nothing', () => {
    expect(parseStatsRebuildArgs(['--aply'])).toEqual({ ok: false, help: false, message: 'unknown option --aply' });
    expect(parseStatsRebuildArgs(['2026-12-01'])).toEqual({ ok: false, help: false, message: 'unexpected argument 2026-12-01' });
  });

  it('refuses --from or --to without a date, a date that does not exist and a range that ends before it starts', () => {
    expect(parseStatsRebuildArgs(['--from'])).toMatchObject({ ok: false, message: '--from needs a date YYYY-MM-DD' });
    expect(parseStatsRebuildArgs(['--to', '--apply'])).toMatchObject({ ok: false, message: '--to needs a date YYYY-MM-DD' });
    expect(parseStatsRebuildArgs(['--from', '2026-02-30'])).toMatchObject({ ok: false, message: '--from must be a date YYYY-MM-DD, got 2026-02-30' });
    expect(parseStatsRebuildArgs(['--from', '2026-12-07', '--to', '2026-12-01'])).toMatchObject({
      ok: false,
      message: '--from 2026-12-07 is after --to 2026-12-01',
    });
  });

  it('answers --help with the usage', () => {
    expect(parseStatsRebuildArgs(['--help'])).toEqual({ ok: false, help: true });
    expect(parseStatsRebuildArgs(['-h'])).toEqual({ ok: false, help: true });
  });
});
