/**
 * Every link of the console goes through components/ui/link.tsx, which does not prefetch: a file
 * importing next/link directly would bring back a server render of the console layout per link in
 * view (docs/console.md "Links do not prefetch").
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('links of the console', () => {
  const files = ['app', 'components'].flatMap((dir) => sources(dir)).map((file) => ({ file, text: readFileSync(file, 'utf8') }));

  it('are found (the scan reads the console’s sources)', () => {
    expect(files.filter(({ text }) => text.includes("from '@/components/ui/link'")).length).toBeGreaterThan(20);
  });

  it('never import next/link but through components/ui/link.tsx', () => {
    const direct = files.filter(({ file, text }) => file !== join('components', 'ui', 'link.tsx') && /from\s+['"]next\/link['"]/.test(text)).map(({ file }) => file);
    expect(direct).toEqual([]);
  });
});
