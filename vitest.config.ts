import path from 'node:path';
import { defineConfig } from 'vitest/config';

// `tickflow/handlers` is the public module of handler files (worker/handlers/define.ts); the
// worker resolves it with a module hook, vite with this alias.
const alias = { '@': path.resolve(import.meta.dirname), 'tickflow/handlers': path.resolve(import.meta.dirname, 'worker/handlers/define.ts') };

/**
 * The folders whose code turns instants into wall-clock dates and times and back (schedules,
 * crontabs, stats days, the jobs' next fires, the engine's tick, runs, alarms, the API's instants,
 * the console's formatting): their unit tests run again under two more host zones, since a
 * schedule's result must not depend on the host's zone. The rest (infra, network policy, auth, DAG
 * shapes, handlers, the worker) reads no zone and runs once, under UTC.
 */
export const ZONE_SENSITIVE_UNIT_DIRS = ['lib/schedule', 'lib/time', 'lib/stats', 'lib/crontab', 'lib/jobs', 'lib/engine', 'lib/runs', 'lib/alarms', 'lib/api', 'components', 'app'];

/**
 * A unit project under host zone `tz` (tests/helpers/host-zone-setup.ts checks that it applied).
 * `unit` runs every file on a fresh worker thread: threads start faster than child processes, but
 * share their process's zone, so only the project under the vitest process's own zone (UTC:
 * scripts/test.ts, package.json) may use them. The two other zones' projects hold only the
 * zone-sensitive folders, whose tests are pure functions of their input: their files run one
 * after another in shared child processes (`isolate: false`), which halves the unit stage; a file
 * that leaves state behind (timers, module singletons) would show here first.
 */
function unitProject(name: string, tz: string, include: string[], pool: 'threads' | 'forks') {
  return {
    resolve: { alias },
    test: { name, include, pool, isolate: pool === 'threads', environment: 'node' as const, env: { TZ: tz }, setupFiles: ['tests/helpers/host-zone-setup.ts'] },
  };
}

// Projects: `unit` (pure modules, tests beside the code, under UTC), `unit-new-york` and
// `unit-sydney` (ZONE_SENSITIVE_UNIT_DIRS again under America/New_York and Australia/Sydney: one
// vitest run shares its start-up and its workers among the three), and `integration` (real
// PostgreSQL: every test file gets its own database cloned from a migrated template; see
// tests/global-setup.ts).
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      unitProject('unit', 'UTC', ['lib/**/*.test.ts', 'worker/**/*.test.ts', 'components/**/*.test.ts', 'app/**/*.test.ts'], 'threads'),
      unitProject('unit-new-york', 'America/New_York', ZONE_SENSITIVE_UNIT_DIRS.map((d) => `${d}/**/*.test.ts`), 'forks'),
      unitProject('unit-sydney', 'Australia/Sydney', ZONE_SENSITIVE_UNIT_DIRS.map((d) => `${d}/**/*.test.ts`), 'forks'),
      {
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Two cores: more forks than this only adds contention on PostgreSQL.
          maxWorkers: 2,
        },
      },
    ],
  },
});
