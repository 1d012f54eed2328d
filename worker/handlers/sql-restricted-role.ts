/**
 * The `sql` executor's default connection: the restricted role it logs in as (worker/handlers/sql.ts
 * runs every step without a `connection` through it), how the role is provisioned and verified,
 * and the guard that undoes what the role may change about itself.
 *
 * The `default` connection is a real privilege boundary (H2). It does NOT use
 * the worker's own (privileged) DATABASE_URL user — `SET search_path` or
 * `SET ROLE` would not be a boundary, the SQL text can undo either. It logs in
 * as a dedicated role, `sqlRunnerRoleName(database)` =
 * `tickflow_sql_<first 16 hex of sha256(database name)>` (roles are
 * cluster-wide, so the name is per database: two Tickflow databases, or
 * concurrent test databases, on one server never share or race one role):
 * LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT (and NOREPLICATION
 * NOBYPASSRLS), member of no role, granted nothing on Tickflow's tables;
 * it owns schema `tickflow_scratch` (its search_path) and nothing else. Same
 * host/port/database/TLS settings as DATABASE_URL, its own password.
 *
 * Provisioning (first use per worker, idempotent, serialised across workers
 * by a transaction-level advisory lock): CREATE ROLE (or ALTER ROLE back to
 * the attributes above), password = settings row `sql_runner_password`
 * (generated once, random; the restricted role cannot read `settings`; it is
 * re-applied on every provisioning, when a login is refused, and by the role
 * guard below), role-level settings reset (ALTER ROLE … [IN DATABASE …] RESET ALL, then
 * search_path), `tickflow_scratch` created or handed over to the role
 * (with the objects already in it, for databases that used the old
 * unrestricted executor). When the Tickflow user is not a superuser it grants
 * itself membership in the restricted role (never the other way round) so it
 * may hand the schema over and cancel the role's statements.
 * Then it VERIFIES the boundary and refuses to run anything if it does not
 * hold: dangerous role attributes, any role membership, any privilege on a
 * table/view/sequence outside tickflow_scratch and the system catalogs (e.g. a
 * `GRANT ... TO PUBLIC`), CREATE on another schema (PostgreSQL <= 14 gives
 * PUBLIC CREATE on `public`: revoked when the Tickflow user owns that schema,
 * refused otherwise), or an executable SECURITY DEFINER function.
 * After each attempt the session is reset with DISCARD ALL (session advisory
 * locks, session GUCs, temp tables do not leak into the next attempt).
 *
 * The role can change its own password and its own session defaults (`ALTER ROLE CURRENT_USER
 * PASSWORD …` / `SET …`: PostgreSQL allows it to every role, and it cannot be revoked). So each
 * attempt's transaction sets what the boundary and the other users' attempts rely on
 * (./sql-attempt-settings.ts RESTRICTED_BEGIN, attemptSettingsStatement), and the role guard (guardSqlRunnerRole) resets
 * the role's settings and password through the admin pool at most SQL_ROLE_GUARD_INTERVAL_MS
 * after an attempt ran, ending the role's other sessions when it found a change
 * (docs/security.md "The sql executor's restricted role").
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { checkOut } from '../../lib/pg-checkout.ts';
import { HandlerError } from './types.ts';

/** The one schema the restricted role owns, and its search_path. */
export const SCRATCH_SCHEMA = 'tickflow_scratch';
/** settings row holding the restricted role's password (readable by the Tickflow user only). */
export const SQL_RUNNER_PASSWORD_SETTING = 'sql_runner_password';

/** pg_advisory_xact_lock key serialising provisioning across workers: hashtext('tickflow.sql_runner') */
const PROVISION_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext('tickflow.sql_runner'))`;

/**
 * How often, at most, the worker re-asserts the restricted role (guardSqlRunnerRole) while
 * default-connection attempts run or have ended since its last pass. PostgreSQL lets any role
 * change its own password and its own session defaults, so an operator's SQL can; the change
 * lasts at most this long (plus one round trip) after the statement that made it, as long as
 * the worker that ran it lives. An idle worker sends nothing.
 */
export const SQL_ROLE_GUARD_INTERVAL_MS = 2000;

/** The one role-level setting the restricted role is meant to have (provisioning sets it). */
const EXPECTED_ROLE_SETTINGS = `search_path=${SCRATCH_SCHEMA}`;

/** The restricted role of the default connection on database `database` (cluster-wide name, hence per database). */
export function sqlRunnerRoleName(database: string): string {
  return `tickflow_sql_${createHash('sha256').update(database).digest('hex').slice(0, 16)}`;
}

/**
 * The SCRAM-SHA-256 verifier of the restricted role's password, as PostgreSQL stores it
 * (RFC 5802/7677: 4096 iterations; the salt derived from the password, so every worker sends the
 * same verifier and a superuser's guard can compare it with pg_authid instead of writing it).
 * Sent as the PASSWORD of ALTER ROLE, PostgreSQL stores it as it is: no hashing on the server.
 * @param password the password from the settings row (already [A-Za-z0-9_-], nothing to normalise)
 */
export function sqlRunnerVerifier(password: string): string {
  const iterations = 4096;
  const salt = createHash('sha256').update(`tickflow.sql_runner.salt:${password}`).digest().subarray(0, 16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export const USE_NAMED_CONNECTION =
  'define TICKFLOW_SQL_CONNECTIONS (JSON {"name": "postgres://restricted_user:...@host/db"}) with a role of your own that has only the privileges your SQL needs, and set `connection` on the step';

/**
 * Creates (or re-asserts) the restricted role and its scratch schema, then
 * verifies the boundary. Returns the role name and password. Throws a
 * HandlerError (code `sql_runner`) when it cannot be made safe.
 */
export async function provisionSqlRunner(admin: pg.Pool): Promise<{ role: string; password: string; superuser: boolean }> {
  const checkedOut = await checkOut(admin);
  const client = checkedOut.client;
  let broken = false;
  try {
    await client.query('BEGIN');
    await client.query(PROVISION_LOCK_SQL);
    const me = (
      await client.query<{ db: string; user: string; rolsuper: boolean; rolcreaterole: boolean }>(
        `SELECT current_database() AS db, current_user AS "user", r.rolsuper, r.rolcreaterole FROM pg_roles r WHERE r.rolname = current_user`,
      )
    ).rows[0]!;
    const role = sqlRunnerRoleName(me.db);
    const R = quoteIdent(role);
    if (!me.rolsuper && !me.rolcreaterole) {
      throw new HandlerError(
        `sql: the default connection runs SQL as the restricted role ${role}, but the Tickflow database user "${me.user}" may not create roles (no CREATEROLE; e.g. a managed database). ` +
          `Grant it CREATEROLE, or ${USE_NAMED_CONNECTION}. The default connection never falls back to Tickflow's own privileged user.`,
        { code: 'sql_runner' },
      );
    }

    // The password: generated once, shared by every worker through `settings`.
    await client.query(
      `INSERT INTO settings (key, value, updated_at) VALUES ($1, to_jsonb($2::text), now()) ON CONFLICT (key) DO NOTHING`,
      [SQL_RUNNER_PASSWORD_SETTING, randomBytes(24).toString('base64url')],
    );
    const stored = (await client.query<{ value: unknown }>(`SELECT value FROM settings WHERE key = $1`, [SQL_RUNNER_PASSWORD_SETTING])).rows[0]?.value;
    if (typeof stored !== 'string' || !/^[A-Za-z0-9_-]{16,}$/.test(stored)) {
      throw new HandlerError(`sql: settings.${SQL_RUNNER_PASSWORD_SETTING} is malformed; delete that row to regenerate it`, { code: 'sql_runner' });
    }
    const password = stored; // [A-Za-z0-9_-] only: safe inside a literal

    const exists = (await client.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [role])).rowCount! > 0;
    const superOnly = me.rolsuper ? ' NOSUPERUSER NOREPLICATION NOBYPASSRLS' : '';
    await client.query(
      `${exists ? 'ALTER' : 'CREATE'} ROLE ${R} WITH LOGIN${superOnly} NOCREATEDB NOCREATEROLE NOINHERIT PASSWORD '${sqlRunnerVerifier(password)}'`,
    );
    if (!me.rolsuper) {
      // Membership of the Tickflow user IN the restricted role (not the reverse): needed to hand the
      // schema over (ALTER ... OWNER) and to cancel the role's statements.
      const member = await client.query(`SELECT pg_has_role(current_user, $1, 'MEMBER') AS m`, [role]);
      if (!member.rows[0]?.m) await client.query(`GRANT ${R} TO CURRENT_USER`);
    }
    // Whatever the role stored as its own session defaults (ALTER ROLE CURRENT_USER [IN DATABASE …]
    // SET …, which needs no privilege), in any database: gone; then the one it is meant to have.
    await resetRoleSettings(client, role);
    const canConnect = await client.query(`SELECT has_database_privilege($1, current_database(), 'CONNECT') AS ok`, [role]);
    if (!canConnect.rows[0]?.ok) await client.query(`GRANT CONNECT ON DATABASE ${quoteIdent(me.db)} TO ${R}`);

    // The scratch schema: created for, or handed over to, the restricted role with what it holds.
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCRATCH_SCHEMA} AUTHORIZATION ${R}`);
    await client.query(`ALTER SCHEMA ${SCRATCH_SCHEMA} OWNER TO ${R}`);
    const foreign = await client.query<{ kind: string; name: string; args: string | null }>(
      `SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE'
                             WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'c' THEN 'TYPE' ELSE 'TABLE' END AS kind,
              quote_ident(c.relname) AS name, NULL AS args
         FROM pg_class c
        WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c')
          AND c.relowner <> $2::regrole
          AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                                                 AND d.objid = c.oid AND d.deptype IN ('a', 'i')))
       UNION ALL
       SELECT 'ROUTINE', quote_ident(p.proname), pg_get_function_identity_arguments(p.oid)
         FROM pg_proc p WHERE p.pronamespace = $1::regnamespace AND p.proowner <> $2::regrole
       UNION ALL
       SELECT CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, quote_ident(t.typname), NULL
         FROM pg_type t
        WHERE t.typnamespace = $1::regnamespace AND t.typowner <> $2::regrole AND t.typtype IN ('e', 'd', 'r')`,
      [SCRATCH_SCHEMA, role],
    );
    for (const o of foreign.rows) {
      await client.query(`ALTER ${o.kind} ${SCRATCH_SCHEMA}.${o.name}${o.args !== null ? `(${o.args})` : ''} OWNER TO ${R}`);
    }

    // PostgreSQL <= 14 lets PUBLIC create in schema public: close it when we own it, else refuse below.
    const canCreatePublic = await client.query(
      `SELECT has_schema_privilege($1, n.oid, 'CREATE') AND (pg_has_role(current_user, n.nspowner, 'USAGE') OR $2::boolean) AS fix
         FROM pg_namespace n WHERE n.nspname = 'public'`,
      [role, me.rolsuper],
    );
    if (canCreatePublic.rows[0]?.fix) await client.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);

    const problems = await verifyBoundary(client, role);
    if (problems.length > 0) {
      throw new HandlerError(
        `sql: refusing to run SQL on the default connection: the restricted role ${role} is not isolated from Tickflow's data (${problems.join('; ')}). ` +
          `Fix these grants, or ${USE_NAMED_CONNECTION}.`,
        { code: 'sql_runner' },
      );
    }
    await client.query('COMMIT');
    return { role, password, superuser: me.rolsuper };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    if (err instanceof HandlerError) throw err;
    const e = err as { message?: string; code?: string };
    throw new HandlerError(
      `sql: could not set up the restricted role of the default connection (${e.code ?? 'error'}: ${e.message ?? String(err)}); ${USE_NAMED_CONNECTION}`,
      { code: 'sql_runner' },
    );
  } finally {
    checkedOut.release(broken);
  }
}

/**
 * Removes every role-level setting of `role` (in every database: pg_db_role_setting), then sets
 * the one it is meant to have (search_path = tickflow_scratch).
 */
async function resetRoleSettings(client: pg.ClientBase | pg.Pool, role: string): Promise<void> {
  const R = quoteIdent(role);
  const rows = await client.query<{ db: string | null }>(
    `SELECT d.datname AS db FROM pg_db_role_setting s LEFT JOIN pg_database d ON d.oid = s.setdatabase
      WHERE s.setrole = (SELECT oid FROM pg_roles WHERE rolname = $1) ORDER BY 1 NULLS FIRST`,
    [role],
  );
  for (const { db } of rows.rows) {
    await client.query(db === null ? `ALTER ROLE ${R} RESET ALL` : `ALTER ROLE ${R} IN DATABASE ${quoteIdent(db)} RESET ALL`);
  }
  await client.query(`ALTER ROLE ${R} SET search_path = ${SCRATCH_SCHEMA}`);
}

/** What the restricted role could do beyond its scratch schema; empty when the boundary holds. */
async function verifyBoundary(client: pg.PoolClient, role: string): Promise<string[]> {
  const out: string[] = [];
  const attrs = (
    await client.query<{ rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean; rolreplication: boolean; rolbypassrls: boolean; memberOf: string[] }>(
      `SELECT r.rolsuper, r.rolcreatedb, r.rolcreaterole, r.rolreplication, r.rolbypassrls,
              ARRAY(SELECT g.rolname::text FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid) AS "memberOf"
         FROM pg_roles r WHERE r.rolname = $1`,
      [role],
    )
  ).rows[0];
  if (!attrs) return [`role ${role} does not exist`];
  for (const a of ['rolsuper', 'rolcreatedb', 'rolcreaterole', 'rolreplication', 'rolbypassrls'] as const) {
    if (attrs[a]) out.push(`it has ${a.slice(3).toUpperCase()}`);
  }
  if (attrs.memberOf.length) out.push(`it is a member of ${attrs.memberOf.join(', ')}`);
  const stored = await client.query<{ db: string | null; config: string[] }>(
    `SELECT d.datname AS db, s.setconfig AS config FROM pg_db_role_setting s LEFT JOIN pg_database d ON d.oid = s.setdatabase
      WHERE s.setrole = (SELECT oid FROM pg_roles WHERE rolname = $1)`,
    [role],
  );
  const unexpected = stored.rows.flatMap((r) => (r.config ?? []).filter((c) => r.db !== null || c !== EXPECTED_ROLE_SETTINGS).map((c) => (r.db === null ? c : `${c} in database ${r.db}`)));
  if (unexpected.length) out.push(`it has role settings ${unexpected.join(', ')} (ALTER ROLE ... RESET ALL)`);
  const rels = await client.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
        AND n.nspname NOT IN ('pg_catalog', 'information_schema', $2) AND n.nspname NOT LIKE 'pg\\_%'
        AND (has_table_privilege($1, c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
             OR has_any_column_privilege($1, c.oid, 'SELECT, INSERT, UPDATE, REFERENCES'))
      ORDER BY 1 LIMIT 20`,
    [role, SCRATCH_SCHEMA],
  );
  if (rels.rowCount) out.push(`it has privileges on ${rels.rows.map((r) => r.name).join(', ')}`);
  const schemas = await client.query<{ name: string }>(
    `SELECT n.nspname AS name FROM pg_namespace n
      WHERE n.nspname <> $2 AND n.nspname NOT LIKE 'pg\\_%' AND has_schema_privilege($1, n.oid, 'CREATE') ORDER BY 1`,
    [role, SCRATCH_SCHEMA],
  );
  if (schemas.rowCount) out.push(`it may CREATE in schema ${schemas.rows.map((r) => r.name).join(', ')} (REVOKE CREATE ON SCHEMA ... FROM PUBLIC)`);
  const definers = await client.query<{ name: string }>(
    `SELECT p.oid::regprocedure::text AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE p.prosecdef AND n.nspname NOT IN ('pg_catalog', 'information_schema', $2)
        AND has_function_privilege($1, p.oid, 'EXECUTE') ORDER BY 1 LIMIT 20`,
    [role, SCRATCH_SCHEMA],
  );
  if (definers.rowCount) out.push(`it may execute SECURITY DEFINER functions ${definers.rows.map((r) => r.name).join(', ')}`);
  return out;
}

/** What one pass of guardSqlRunnerRole found and did. */
export interface RoleGuardResult {
  /** role-level settings other than its search_path were found, and removed */
  settingsReset: boolean;
  /** the password was found changed and set back; null: not comparable (not a superuser), set back anyway */
  passwordChanged: boolean | null;
  /** sessions of the role terminated (only when a change was found, or the pass was `suspect`) */
  terminated: number;
}

/**
 * One pass of the restricted role's guard, through Tickflow's own (admin) pool. PostgreSQL lets
 * any role change its own password and its own session defaults (neither can be revoked), so an
 * operator's `sql` step can, however the text is spelled (EXECUTE builds it at run time). The pass:
 * - removes role-level settings other than `search_path = tickflow_scratch`, in any database;
 * - sets the password back to the worker's (`verifier`, sqlRunnerVerifier). A superuser compares
 *   it with pg_authid first and writes only a changed one; any other Tickflow user (CREATEROLE)
 *   cannot read pg_authid and writes it on every pass (one pg_authid row update);
 * - when a change was found (or `suspect`: a worker's login was refused), terminates every session
 *   of the role but this worker's own (`keepPids`): a session opened with a changed password, or
 *   one that started with changed defaults. Other workers' attempts then fail as on any lost
 *   connection and are retried per their policy — nothing the role could not do itself
 *   (pg_terminate_backend of its own sessions needs no privilege).
 * Cost of a pass with nothing to repair: one read (a superuser), or one read and one ALTER ROLE.
 * @throws Error when the role does not exist (provision again), or a statement fails (e.g.
 *   "tuple concurrently updated" when another worker's pass wrote the row at the same moment)
 */
export async function guardSqlRunnerRole(
  admin: pg.Pool,
  opts: { role: string; verifier: string; superuser: boolean; keepPids: readonly number[]; suspect?: boolean },
): Promise<RoleGuardResult> {
  const { role, verifier, superuser } = opts;
  const probe = (
    await admin.query<{ settings: { db: string | null; config: string[] }[]; password_ok: boolean | null }>(
      `SELECT (SELECT coalesce(json_agg(json_build_object('db', d.datname, 'config', s.setconfig)), '[]'::json)
                 FROM pg_db_role_setting s LEFT JOIN pg_database d ON d.oid = s.setdatabase WHERE s.setrole = r.oid) AS settings,
              ${superuser ? '(SELECT a.rolpassword = $2 FROM pg_authid a WHERE a.oid = r.oid)' : 'NULL::boolean'} AS password_ok
         FROM pg_roles r WHERE r.rolname = $1`,
      superuser ? [role, verifier] : [role],
    )
  ).rows[0];
  if (!probe) throw new Error(`role ${role} does not exist`);
  const [only, ...more] = probe.settings;
  const settingsOk = !more.length && only?.db === null && only.config.length === 1 && only.config[0] === EXPECTED_ROLE_SETTINGS;
  if (!settingsOk) await resetRoleSettings(admin, role);
  if (probe.password_ok !== true) await admin.query(`ALTER ROLE ${quoteIdent(role)} PASSWORD '${verifier}'`);
  let terminated = 0;
  if (!settingsOk || probe.password_ok === false || opts.suspect) {
    const r = await admin.query<{ n: number }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE usename = $1 AND pid <> ALL($2::int[])`,
      [role, [...opts.keepPids]],
    );
    terminated = r.rows[0]?.n ?? 0;
  }
  return { settingsReset: !settingsOk, passwordChanged: probe.password_ok === null ? null : !probe.password_ok, terminated };
}
