/**
 * The migration runner and the invariants the initial migration installs:
 * append-only task_logs, partial indexes, CHECK constraints.
 */
import { describe, expect, it } from 'vitest';
import { migrate } from '../../lib/infra/migrate.ts';
import { useTestDatabase } from '../helpers/db.ts';

describe('migrations', () => {
  const t = useTestDatabase();

  it('is recorded in Prisma history and re-running applies nothing', async () => {
    const again = await migrate(t.url);
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toBeGreaterThanOrEqual(1);
    const { rows } = await t.pool.query(`SELECT migration_name, checksum, finished_at FROM _prisma_migrations`);
    expect(rows.length).toBe(again.alreadyApplied);
    for (const r of rows) {
      expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(r.finished_at).not.toBeNull();
    }
  });

  it('rejects UPDATE, DELETE and TRUNCATE on task_logs', async () => {
    const { rows } = await t.pool.query(
      `INSERT INTO task_logs (task_id, run_id, scheduled_for, to_status, message) VALUES (gen_random_uuid(), gen_random_uuid(), now(), 'pending', 'x') RETURNING id`,
    );
    const id = rows[0].id;
    await expect(t.pool.query(`UPDATE task_logs SET message = 'y' WHERE id = $1`, [id])).rejects.toThrow(/append-only/);
    await expect(t.pool.query(`DELETE FROM task_logs WHERE id = $1`, [id])).rejects.toThrow(/append-only/);
    await expect(t.pool.query(`TRUNCATE task_logs`)).rejects.toThrow(/append-only/);
    const after = await t.pool.query(`SELECT message FROM task_logs WHERE id = $1`, [id]);
    expect(after.rows[0].message).toBe('x');
  });

  it('allows a job key again only once the first job is deleted (partial unique index)', async () => {
    const insert = (key: string) =>
      t.pool.query(`INSERT INTO jobs (key, name, schedule_kind) VALUES ($1, 'n', 'manual') RETURNING id`, [key]);
    const first = await insert('dup.key');
    await expect(insert('dup.key')).rejects.toThrow(/jobs_key_live_uniq/);
    await t.pool.query(`UPDATE jobs SET deleted_at = now() WHERE id = $1`, [first.rows[0].id]);
    await expect(insert('dup.key')).resolves.toBeTruthy();
  });

  it('enforces schedule-kind fields and the task state machine in SQL', async () => {
    await expect(t.pool.query(`INSERT INTO jobs (key, name, schedule_kind) VALUES ('c1', 'n', 'cron')`)).rejects.toThrow(/jobs_cron_fields/);
    await expect(t.pool.query(`INSERT INTO jobs (key, name, schedule_kind, interval_seconds) VALUES ('i1', 'n', 'interval', 0)`)).rejects.toThrow(/jobs_interval_fields/);
    const run = await t.pool.query(
      `INSERT INTO runs (job_id, job_key, job_version, trigger, triggered_by, scheduled_for, trace_id)
       VALUES ('j', 'k', 1, 'manual', 'test', now(), 't') RETURNING id, scheduled_for`,
    );
    const task = await t.pool.query(
      `INSERT INTO tasks (run_id, scheduled_for, job_id, step_key, handler) VALUES ($1, $2, 'j', 'main', 'builtin.noop') RETURNING id`,
      [run.rows[0].id, run.rows[0].scheduled_for],
    );
    // pending -> success skips running: refused by the transition trigger.
    await expect(t.pool.query(`UPDATE tasks SET status = 'success' WHERE id = $1`, [task.rows[0].id])).rejects.toThrow(/invalid task transition/);
    // running needs a lease holder.
    await expect(t.pool.query(`UPDATE tasks SET status = 'running' WHERE id = $1`, [task.rows[0].id])).rejects.toThrow(/tasks_running_has_lease/);
  });

  it('refuses a self-dependency', async () => {
    const run = await t.pool.query(
      `INSERT INTO runs (job_id, job_key, job_version, trigger, triggered_by, scheduled_for, trace_id)
       VALUES ('j', 'k', 1, 'manual', 'test', now(), 't2') RETURNING id, scheduled_for`,
    );
    const sf = run.rows[0].scheduled_for;
    const task = await t.pool.query(`INSERT INTO tasks (run_id, scheduled_for, job_id, step_key, handler) VALUES ($1, $2, 'j', 's', 'h') RETURNING id`, [run.rows[0].id, sf]);
    await expect(
      t.pool.query(`INSERT INTO task_dependencies (task_id, parent_task_id, scheduled_for) VALUES ($1, $1, $2)`, [task.rows[0].id, sf]),
    ).rejects.toThrow(/task_dependencies_no_self/);
  });
});
