/**
 * `npm run migrate`: applies prisma/migrations to DATABASE_URL (or the embedded
 * database), then exits. `npm start` does this by itself.
 */
import { resolveDatabase } from '../lib/infra/database-url.ts';
import { migrate } from '../lib/infra/migrate.ts';

const database = await resolveDatabase((l) => console.log(l));
try {
  const result = await migrate(database.url);
  console.log(result.applied.length ? `applied: ${result.applied.join(', ')}` : `up to date (${result.alreadyApplied} migrations)`);
} finally {
  await database.stop();
}
