/**
 * Every link of the console goes through components/ui/link.tsx, which does not prefetch: a file
 * importing next/link directly would bring back a server render of the console layout per link in
 * view (docs/console.md "Links do not prefetch").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, isSourceFile } from '../../tests/helpers/files-under.ts';

describe('links of the console', () => {
  const files = ['app', 'components'].flatMap((dir) => filesUnder(dir, isSourceFile)).map((file) => ({ file, text: readFileSync(file, 'utf8') }));

  it('are found (the scan reads the console’s sources)', () => {
    expect(files.filter(({ text }) => text.includes("from '@/components/ui/link'")).length).toBeGreaterThan(20);
  });

  it('never import next/link but through components/ui/link.tsx', () => {
    const direct = files.filter(({ file, text }) => file !== join('components', 'ui', 'link.tsx') && /from\s+['"]next\/link['"]/.test(text)).map(({ file }) => file);
    expect(direct).toEqual([]);
  });
});
