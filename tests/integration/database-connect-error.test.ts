/**
 * lib/infra/database-connect-error.ts on the errors a real PostgreSQL server and real sockets give:
 * a missing database, a wrong or absent password, an unknown role, a closed port and a host name
 * that does not resolve each get their own plain message naming the server, the user and the
 * database (never the password) and the fix; migrate() throws that message and creates nothing.
 * The test server (tests/global-setup.ts) uses scram-sha-256 password authentication. A server
 * given through DATABASE_URL may trust local connections (CI's second server does): there, no
 * password can be refused, so the password cases are reported as skipped, naming why.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { DatabaseConnectError, explainConnectError } from '../../lib/infra/database-connect-error.ts';
import { migrate, migrationSummary, withDatabase } from '../../lib/infra/migrate.ts';
import { freePort } from '../helpers/free-port.ts';

const adminUrl = () => inject('pgAdminUrl');

/** What connecting to `url` throws, explained. */
async function explained(url: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    return explainConnectError(error, url);
  } finally {
    await client.end().catch(() => undefined);
  }
  throw new Error(`connecting to ${url} succeeded`);
}

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

function withUserPassword(url: string, user: string, password: string | undefined): string {
  const u = new URL(url);
  u.username = user;
  u.password = password ?? '';
  return u.toString();
}

/** Whether the server refuses a wrong password (false for a `trust` pg_hba.conf rule). */
async function serverChecksPasswords(): Promise<boolean> {
  const url = new URL(withDatabase(adminUrl(), 'postgres'));
  url.password = `wrong-${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === '28P01') return true;
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const checksPasswords = await serverChecksPasswords();

// The embedded test server is started with a password and must check it: the skip below is only
// for a server reached without one.
it.runIf(!checksPasswords)('a server that checks no password was given without one', () => {
  expect(new URL(adminUrl()).password).toBe('');
});

describe('explainConnectError', () => {
  it('a missing database: names it and the server, gives createdb and CREATE DATABASE, never the password', async () => {
    const name = `tickflow_missing_${randomBytes(3).toString('hex')}`;
    const url = withDatabase(adminUrl(), name);
    const { port, password } = new URL(url);
    const error = await explained(url);
    expect(error).toBeInstanceOf(DatabaseConnectError);
    expect((error as DatabaseConnectError).problem).toBe('missing-database');
    const message = (error as Error).message;
    expect(message).toContain(`database "${name}" does not exist on the PostgreSQL server at 127.0.0.1:${port}`);
    expect(message).toContain(`createdb -h 127.0.0.1 -p ${port} -U postgres ${name}`);
    expect(message).toContain(`CREATE DATABASE "${name}" OWNER "postgres";`);
    if (password) expect(message).not.toContain(decodeURIComponent(password));
  });

  it('a name that needs quoting is quoted for the shell and for SQL', async () => {
    const name = `it's "odd" ${randomBytes(2).toString('hex')}`;
    const message = ((await explained(withDatabase(adminUrl(), name))) as Error).message;
    expect(message).toContain(`-U postgres 'it'\\''s "odd" ${name.slice(-4)}'`);
    expect(message).toContain(`CREATE DATABASE "it's ""odd"" ${name.slice(-4)}"`);
  });

  it.runIf(checksPasswords)('a wrong password, no password and an unknown role: refused, naming the user, distinct from a missing database', async () => {
    const url = withDatabase(adminUrl(), 'postgres');
    const wrong = (await explained(withUserPassword(url, 'postgres', 'not-the-password'))) as DatabaseConnectError;
    expect(wrong.problem).toBe('authentication');
    expect(wrong.message).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+ refused user "postgres" for database "postgres": password authentication failed/);
    expect(wrong.message).not.toContain('not-the-password');
    const none = (await explained(withUserPassword(url, 'postgres', undefined))) as DatabaseConnectError;
    expect(none.problem).toBe('authentication');
    expect(none.message).toContain('the server asks for a password and DATABASE_URL holds none');
    const role = (await explained(withUserPassword(url, 'no_such_role', 'x'))) as DatabaseConnectError;
    expect(role.problem).toBe('authentication');
    expect(role.message).toContain('refused user "no_such_role"');
  });

  it('a closed port and a host name that does not resolve: cannot reach, naming the server', async () => {
    const closed = await freePort();
    const refused = (await explained(`postgresql://postgres:secret@127.0.0.1:${closed}/tickflow`)) as DatabaseConnectError;
    expect(refused.problem).toBe('unreachable');
    expect(refused.message).toBe(
      `cannot reach PostgreSQL at 127.0.0.1:${closed}: connection refused (nothing listens on that port). ` +
        'Is the server running and reachable from this machine, and are the host and port in DATABASE_URL right?',
    );
    // .invalid never resolves (RFC 6761)
    const unknown = (await explained('postgresql://postgres:secret@tickflow-db.invalid:5432/tickflow')) as DatabaseConnectError;
    expect(unknown.problem).toBe('unreachable');
    expect(unknown.message).toContain('cannot reach PostgreSQL at tickflow-db.invalid:5432: the host name "tickflow-db.invalid" does not resolve');
  });

  it('an error that is not about connecting is returned as it is', async () => {
    const client = new pg.Client({ connectionString: withDatabase(adminUrl(), 'postgres') });
    await client.connect();
    try {
      const error = await client.query('SELECT * FROM no_such_table').then(() => undefined, (e: unknown) => e);
      expect(explainConnectError(error, adminUrl())).toBe(error);
    } finally {
      await client.end();
    }
  });
});

describe('migrate()', () => {
  it('on a missing database: throws the explained error and creates nothing', async () => {
    const name = `tickflow_missing_${randomBytes(3).toString('hex')}`;
    await expect(migrate(withDatabase(adminUrl(), name))).rejects.toThrow(new RegExp(`database "${name}" does not exist.*createdb`));
    expect(await databaseExists(name)).toBe(false);
  });

  it('says "created" on a new database and "up to date" after, with the count, not 20-odd names', async () => {
    const name = `${inject('pgPrefix')}_summary_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name}"`);
      const first = await migrate(withDatabase(adminUrl(), name));
      expect(migrationSummary(first)).toBe(`database schema created (${first.applied.length} migrations)`);
      const again = await migrate(withDatabase(adminUrl(), name));
      expect(migrationSummary(again)).toBe(`database schema up to date (${first.applied.length} migrations)`);
      expect(migrationSummary({ applied: ['20990101000000_next'], alreadyApplied: 3 })).toBe('applied migrations: 20990101000000_next');
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
