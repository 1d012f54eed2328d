/**
 * Every label given to preparedSql in the code (lib/sql-pool.ts) is one preparedSql accepts. A bad
 * label throws only when its statement first runs, and a statement that runs only on a rare path
 * (a label chosen by a condition) would fail there alone: the batched DAG completion inside a
 * caller's transaction once fell back to completing one by one for a 33-character label.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { filesUnder, isSourceFile } from '../tests/helpers/files-under.ts';
import { preparedSql } from './sql-pool.ts';

/** The string literals in the first argument of each preparedSql( call of `text`. */
function labelsIn(text: string): string[] {
  const labels: string[] = [];
  for (const m of text.matchAll(/preparedSql\(\s*([^`,]+?)\s*,\s*`/g)) {
    for (const lit of m[1]!.matchAll(/'([^']*)'/g)) labels.push(lit[1]!);
  }
  return labels;
}

describe('preparedSql labels in the code', () => {
  const found = ['lib', 'worker'].flatMap((dir) => filesUnder(dir, isSourceFile)).flatMap((file) => labelsIn(readFileSync(file, 'utf8')).map((label) => ({ file, label })));

  it('are found (the scan reads the calls)', () => {
    expect(found.length).toBeGreaterThan(50);
    expect(found.map((f) => f.label)).toContain('complete-dag-tasks-in-tx');
  });

  it('are each accepted by preparedSql', () => {
    const refused = found.filter(({ label }) => {
      try {
        preparedSql(label, 'SELECT 1');
        return false;
      } catch {
        return true;
      }
    });
    expect(refused).toEqual([]);
  });
});
