/**
 * `npm run migrate`: applies prisma/migrations to DATABASE_URL (or the embedded
 * database), then exits; exit 1 with the reason when it cannot (a database that is
 * missing, refuses the user or cannot be reached: lib/infra/database-connect-error.ts).
 * `npm start` does this by itself.
 */
import { resolveDatabase } from '../lib/infra/database-url.ts';
import { migrate, migrationSummary } from '../lib/infra/migrate.ts';

const say = (line: string) => console.log(`[tickflow] ${line}`);
let database;
try {
  // A running `npm start`'s embedded database is used as it is, never stopped (resolveDatabase reuseRunning).
  database = await resolveDatabase(say, { reuseRunning: true });
} catch (error) {
  console.error(`[tickflow] ${(error as Error).message}`);
  process.exit(1);
}
try {
  say(migrationSummary(await migrate(database.url)));
} catch (error) {
  console.error(`[tickflow] migrations not applied: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await database.stop();
}
