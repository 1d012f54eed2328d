import path from 'node:path';
import { defineConfig } from 'vitest/config';

// `tickflow/handlers` is the public module of handler files (worker/handlers/define.ts); the
// worker resolves it with a module hook, vite with this alias.
const alias = { '@': path.resolve(import.meta.dirname), 'tickflow/handlers': path.resolve(import.meta.dirname, 'worker/handlers/define.ts') };

// Two projects: `unit` (pure modules, tests beside the code) and `integration`
// (real PostgreSQL: every test file gets its own database cloned from a
// migrated template; see tests/global-setup.ts).
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['lib/**/*.test.ts', 'worker/**/*.test.ts', 'components/**/*.test.ts', 'app/**/*.test.ts'],
          environment: 'node',
        },
      },
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
