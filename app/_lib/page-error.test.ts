import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../../tests/helpers/files-under.ts';
import { consolePage, firstSearchValues } from './page-error.ts';

const APP = path.resolve(import.meta.dirname, '..');

/** Every page.tsx / layout.tsx under app/, as a path relative to it. */
function routeModules(): string[] {
  return filesUnder(APP, (name) => name === 'page.tsx' || name === 'layout.tsx').map((full) => path.relative(APP, full));
}

describe('console pages meet a database outage with the 503 page (app/_lib/page-error.ts)', () => {
  it('every page and layout that may read the database is wrapped by consolePage', () => {
    // the root layout reads a cookie only; every other page or layout loads data (or the session) from the database
    const modules = routeModules().filter((m) => m !== 'layout.tsx');
    expect(modules.length).toBeGreaterThan(10);
    const unwrapped = modules.filter((m) => !/^export default consolePage\(/m.test(readFileSync(path.join(APP, m), 'utf8')));
    expect(unwrapped).toEqual([]);
    expect(readFileSync(path.join(APP, 'layout.tsx'), 'utf8')).not.toMatch(/getDb|prisma|@\/lib\/db/);
  });
});

describe('a query key given more than once (app/_lib/page-error.ts firstSearchValues)', () => {
  it('reaches a page as its first value, never as an array', async () => {
    expect(firstSearchValues({ q: ['line', 'abc'], trail: 'a', none: undefined })).toEqual({ q: 'line', trail: 'a', none: undefined });
    const seen: unknown[] = [];
    const page = consolePage(async ({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) => {
      seen.push(await searchParams);
      return null;
    });
    await page({ searchParams: Promise.resolve({ q: ['line', 'abc'], jobId: ['a', 'b'], cursor: 'c' }) });
    expect(seen).toEqual([{ q: 'line', jobId: 'a', cursor: 'c' }]);
  });
});
