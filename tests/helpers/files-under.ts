import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The files under `dir`, at any depth, whose name `accept` takes, as full paths (the tests that read
 * the project's own sources: every link, action, route or prepared statement of a kind). Folders
 * named `node_modules` or `generated` (Prisma's client) are not entered.
 */
export function filesUnder(dir: string, accept: (name: string, fullPath: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'generated' ? [] : filesUnder(full, accept);
    return accept(e.name, full) ? [full] : [];
  });
}

/** A TypeScript source that is not a test: `x.ts`, `x.tsx`, not `x.test.ts(x)`. */
export const isSourceFile = (name: string): boolean => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name);
