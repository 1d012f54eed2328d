import pg from 'pg';

/**
 * Runs `fn` on a connection of its own to the e2e database (e2e/global-setup.ts sets
 * E2E_DATABASE_URL), for the rows a test inserts or reads behind the console's back; the
 * connection is closed afterwards, whatever `fn` does.
 */
export async function withDb<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error('E2E_DATABASE_URL is not set (e2e/global-setup.ts sets it)');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
