/**
 * Whether the console's production build (`.next`) is missing or older than its
 * sources: `npm start` then runs `next build` first (README "The two commands").
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function newestMtime(dir: string): number {
  let newest = 0;
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'generated' || entry.name.startsWith('.')) continue;
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  if (existsSync(dir)) walk(dir);
  return newest;
}

/**
 * True when `<root>/.next/BUILD_ID` is missing or any file under app/, components/,
 * lib/ or a build configuration file is newer than it (file modification times).
 * @param root the checkout (folder of package.json)
 */
export function consoleBuildIsStale(root: string): boolean {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  const sources = Math.max(
    ...['app', 'components', 'lib'].map((d) => newestMtime(path.join(root, d))),
    ...['next.config.ts', 'package.json', 'postcss.config.mjs'].map((f) => {
      const file = path.join(root, f);
      return existsSync(file) ? statSync(file).mtimeMs : 0;
    }),
  );
  return sources > built;
}
