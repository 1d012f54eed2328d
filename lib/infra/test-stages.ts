/**
 * The command line of `npm test` (scripts/test.ts). The whole run takes a long while on a small
 * machine, so an argument it cannot read is refused instead of ignored: `npm test -- --onyl unit`,
 * `npm test -- --only` without stages, or `npm test unit` would otherwise run every stage, e2e
 * included. (`npm test --only unit`, without `--`, never reaches the script: npm reads `--only` and
 * its value as its own setting and passes nothing, so the README says to write the `--`.)
 */
export const TEST_STAGES = ['typecheck', 'unit', 'integration', 'e2e'] as const;
export type TestStage = (typeof TEST_STAGES)[number];

export const TEST_USAGE = `usage: npm test [-- --only STAGE[,STAGE…]]   (stages: ${TEST_STAGES.join(', ')})`;

/** The stages to run (null: all of them), or the reason the arguments are refused. */
export function parseTestArgs(argv: readonly string[]): { ok: true; only: Set<TestStage> | null } | { ok: false; message: string } {
  let only: Set<TestStage> | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    let list: string | undefined;
    if (a === '--only') {
      list = argv[++i];
      if (list === undefined || list.startsWith('-')) return { ok: false, message: '--only needs a list of stages' };
    } else if (a.startsWith('--only=')) list = a.slice('--only='.length);
    else if (a.startsWith('-')) return { ok: false, message: `unknown option ${a}` };
    else return { ok: false, message: `unexpected argument ${a} (a subset of the stages: npm test -- --only ${a})` };
    const stages = list.split(',').map((s) => s.trim()).filter(Boolean);
    if (!stages.length) return { ok: false, message: '--only needs a list of stages' };
    for (const stage of stages) {
      if (!(TEST_STAGES as readonly string[]).includes(stage)) return { ok: false, message: `unknown stage "${stage}" in --only (stages: ${TEST_STAGES.join(', ')})` };
    }
    only = new Set([...(only ?? []), ...(stages as TestStage[])]);
  }
  return { ok: true, only };
}
