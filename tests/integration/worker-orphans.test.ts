/**
 * Work a worker starts outside its own process dies with it (README "Workers, claims and
 * leases"): a real compiled worker process SIGKILLed mid-attempt leaves no `shell` process group
 * and no temp directory behind (the shell guardian, worker/handlers/shell-guardian.ts), and no
 * `sql` backend still running its statement (client_connection_check_interval, set by
 * worker/handlers/sql.ts) — within a few seconds, well before the lease (30 s, renewed every
 * 10 s: 20 s at the least) could be reclaimed and attempt 2 start beside it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/db.ts';
import { recordProcess, signalGroupIfOurs, type ProcessRecord } from '../helpers/process-identity.ts';
import { triggerOneTask, useSpawnedWorkers, waitFor, type StepFixture, type WorkerProcess } from './worker-fixtures.ts';

const t = useTestDatabase();
const workers = useSpawnedWorkers(t, { TICKFLOW_DB_POOL: '4', TICKFLOW_LEASE_SECONDS: '30' });
const groups: ProcessRecord[] = [];
afterEach(async () => {
  // a failing run must not leave its sleeps behind either; a group that ended is left alone, whoever has its number now
  for (const g of groups.splice(0)) signalGroupIfOurs(g, 'SIGKILL');
});

/** The default lease and heartbeat: the bound that matters is the one operators get. */
function start(env: Record<string, string> = {}): WorkerProcess {
  return workers.start(env);
}

/** Live (not zombie) processes of process group `pgid`, from /proc (state, ppid, pgrp follow the name). */
function liveInGroup(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') out.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** The worker's shell guardian: its child running the guardian script. */
function guardianOf(workerPid: number): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== workerPid || state === 'Z') continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('while IFS= read -r line')) return Number(name);
    } catch {
      /* gone meanwhile */
    }
  }
  return undefined;
}

/**
 * A worker named `stalls` (the one a test will SIGSTOP) with `env`, and a one-step task of `step`
 * triggered for it: one retry at once, so that attempt 2 can start elsewhere when the lease is reclaimed.
 */
async function stallingWorkerRunning(env: Record<string, string>, step: StepFixture): Promise<{ a: WorkerProcess; id: string }> {
  const a = start({ ...env, TICKFLOW_NODE_NAME: 'stalls' });
  await a.ready;
  const id = await triggerOneTask(t.db, { timeoutSeconds: 300, maxRetries: 1, backoffBaseSeconds: 0, steps: [step] });
  return { a, id };
}

const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

describe('shell: the attempt\'s process group dies with its worker', () => {
  it('SIGKILL of the worker: the group (sh and its sleep) is gone and its temp dir removed within a few seconds; the guardian exits', async () => {
    const w = start({ TICKFLOW_ALLOW_SHELL: '1' });
    await w.ready;
    const id = await triggerOneTask(t.db, {
      timeoutSeconds: 300,
      steps: [{ handler: 'shell', config: { command: ['/bin/sh', '-c', 'echo "pgid=$$ home=$HOME"; sleep 97; echo done'] } }],
    });
    // The command's first line, from the task log lines: its process group and temp dir.
    const line = await waitFor(async () => {
      const r = await t.pool.query<{ text: string }>(`SELECT text FROM task_log_lines WHERE task_id = $1 AND text LIKE 'pgid=%'`, [id]);
      return r.rows[0]?.text;
    }, 20_000, 'the shell task\'s first line');
    const m = /^pgid=(\d+) home=(\S+)$/.exec(line)!;
    const pgid = Number(m[1]);
    const dir = m[2]!;
    groups.push(recordProcess(pgid));
    expect(dir).toMatch(/\/tickflow-shell-/);
    // sh and the sleep it forked
    await waitFor(() => liveInGroup(pgid).length === 2, 5000, 'sh and sleep running');
    expect(existsSync(dir)).toBe(true);
    const guardian = guardianOf(w.child.pid!);

    w.child.kill('SIGKILL');
    await w.exited;
    const killedAt = Date.now();
    await waitFor(() => liveInGroup(pgid).length === 0, 5000, `no process left in group ${pgid}`, 20);
    const goneMs = Date.now() - killedAt;
    await waitFor(() => !existsSync(dir), 5000, `${dir} removed`, 20);
    expect(guardian).toBeDefined();
    await waitFor(() => !alive(guardian!), 5000, 'the guardian exited', 20);
    console.log(`shell group gone ${goneMs} ms after the worker's SIGKILL`);
    // still the dead worker's attempt: nothing ran beside it
    expect(await t.db.task.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'running', attempt: 1 });
  }, 60_000);

  it('a normal stop (SIGTERM) still drains: the running command finishes, then the guardian exits', async () => {
    const w = start({ TICKFLOW_ALLOW_SHELL: '1', TICKFLOW_SHUTDOWN_GRACE_MS: '20000' });
    await w.ready;
    const id = await triggerOneTask(t.db, {
      timeoutSeconds: 60,
      steps: [{ handler: 'shell', config: { command: ['/bin/sh', '-c', 'echo started; sleep 2; echo finished'] } }],
    });
    await waitFor(async () => (await t.pool.query(`SELECT 1 FROM task_log_lines WHERE task_id = $1 AND text = 'started'`, [id])).rowCount, 20_000, 'started');
    const guardian = guardianOf(w.child.pid!);
    expect(guardian).toBeDefined();
    w.child.kill('SIGTERM');
    expect(await w.exited).toEqual({ code: 0, signal: null });
    expect(await t.db.task.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'success', attempt: 1 });
    await waitFor(() => !alive(guardian!), 5000, 'the guardian exited', 20);
  }, 60_000);
});

describe('shell: the attempt\'s process group dies before a stalled worker\'s lease can be reclaimed', () => {
  it('SIGSTOP of the worker: the guardian kills the group before the lease ends, attempt 2 starts on another worker only after it, and the woken worker records nothing', async () => {
    const lease = { TICKFLOW_LEASE_SECONDS: '6', TICKFLOW_ALLOW_SHELL: '1' };
    const { a, id } = await stallingWorkerRunning(lease, { handler: 'shell', config: { command: ['/bin/sh', '-c', 'echo "pgid=$$"; sleep 97; echo done'] } });
    const pgidOf = async (attempt: number) => {
      const line = await waitFor(async () => {
        const r = await t.pool.query<{ text: string }>(`SELECT text FROM task_log_lines WHERE task_id = $1 AND attempt = $2 AND text LIKE 'pgid=%'`, [id, attempt]);
        return r.rows[0]?.text;
      }, 30_000, `attempt ${attempt}'s first line`);
      const pgid = Number(/^pgid=(\d+)$/.exec(line)![1]);
      groups.push(recordProcess(pgid));
      return pgid;
    };
    const first = await pgidOf(1);
    await waitFor(() => liveInGroup(first).length === 2, 5000, 'sh and sleep running');
    // The worker that takes over once the lease is reclaimed (it reaps too).
    const b = start({ ...lease, TICKFLOW_NODE_NAME: 'takes-over' });
    await b.ready;

    a.child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    try {
      await waitFor(() => liveInGroup(first).length === 0, 15_000, `attempt 1's group ${first} killed while its worker is stopped`, 20);
      const killedAt = Date.now();
      const leaseUntil = (await t.db.task.findUniqueOrThrow({ where: { id } })).leaseUntil;
      await pgidOf(2);
      const secondStarted = (await t.db.taskLog.findFirstOrThrow({ where: { taskId: id, attempt: 2, toStatus: 'running' } })).createdAt.getTime();
      console.log(`stalled worker's group killed ${killedAt - stoppedAt} ms after SIGSTOP; attempt 2 started ${secondStarted - killedAt} ms later`);
      // Attempt 1 was on the stopped worker until its lease ran out (nobody else took it before).
      expect(leaseUntil).not.toBeNull();
      expect(killedAt).toBeLessThan(secondStarted);
      expect(secondStarted).toBeGreaterThanOrEqual(leaseUntil!.getTime());
    } finally {
      a.child.kill('SIGCONT');
    }
    // Woken, the stalled worker's attempt ends on its side (its late failure refused: the lease is
    // gone), and attempt 2 keeps running where it is.
    await new Promise((r) => setTimeout(r, 3000));
    const task = await t.db.task.findUniqueOrThrow({ where: { id } });
    expect(task).toMatchObject({ status: 'running', attempt: 2 });
    const attempt1 = await t.db.taskLog.findMany({ where: { taskId: id, attempt: 1 }, orderBy: { createdAt: 'asc' } });
    expect(attempt1.map((l) => l.toStatus)).toEqual(['pending', 'running', 'failed']);
    expect(attempt1[2]!.message).toMatch(/lease expired/);
  }, 90_000);
});

describe('a stalled worker wakes as the owner of its tasks', () => {
  it('SIGSTOP of a lone worker past its lease: woken, its own reaper does not call it dead before its heartbeat renews; the attempt ends success', async () => {
    // The reaper's timer (every 250 ms) comes due before the heartbeat's (every 5 s): on waking,
    // the reaper's pass runs first, as it did when a tester saw it call its own worker dead.
    const a = start({ TICKFLOW_LEASE_SECONDS: '6', TICKFLOW_HEARTBEAT_MS: '5000', TICKFLOW_NODE_NAME: 'alone' });
    await a.ready;
    const id = await triggerOneTask(t.db, { timeoutSeconds: 300, maxRetries: 0, steps: [{ handler: 'builtin.sleep', payload: { ms: 14_000 } }] });
    await waitFor(async () => (await t.db.task.findUniqueOrThrow({ where: { id } })).status === 'running', 30_000, 'the task running');
    a.child.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, 9000)); // past the lease (6 s), with nobody else to reap
    a.child.kill('SIGCONT');
    const task = await waitFor(async () => {
      const x = await t.db.task.findUniqueOrThrow({ where: { id } });
      return ['success', 'dead'].includes(x.status) ? x : null;
    }, 30_000, 'the task final');
    const logs = await t.db.taskLog.findMany({ where: { taskId: id }, orderBy: { createdAt: 'asc' } });
    expect(logs.map((l) => l.message).join('\n')).not.toMatch(/presumed dead/);
    expect(task).toMatchObject({ status: 'success', attempt: 1 });
  }, 90_000);
});

describe('sql: the attempt\'s backend ends with its worker', () => {
  it('SIGKILL of the worker: the backend running pg_sleep (holding an advisory lock) is gone from pg_stat_activity within a few seconds', async () => {
    const w = start();
    await w.ready;
    const id = await triggerOneTask(t.db, {
      timeoutSeconds: 300,
      steps: [{ handler: 'sql', config: { sql: 'select pg_advisory_lock(4242), pg_sleep(50)' } }],
    });
    const backend = await waitFor(async () => {
      const r = await t.pool.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%pg_sleep(50)%' AND pid <> pg_backend_pid()`,
      );
      return r.rows[0]?.pid;
    }, 30_000, 'the sql task\'s backend running');
    // what the attempt's transaction set (the role's own SET LOCAL)
    const lock = () => t.pool.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted`);
    expect((await lock()).rowCount).toBe(1);

    w.child.kill('SIGKILL');
    await w.exited;
    const killedAt = Date.now();
    await waitFor(
      async () => (await t.pool.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1`, [backend])).rowCount === 0,
      5000,
      `backend ${backend} gone`,
      20,
    );
    const goneMs = Date.now() - killedAt;
    expect((await lock()).rowCount).toBe(0);
    console.log(`sql backend gone ${goneMs} ms after the worker's SIGKILL`);
    expect(await t.db.task.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'running', attempt: 1 });
  }, 60_000);

  it('SIGSTOP of the worker: its statement runs on, so attempt 2 on another worker ends that backend before its own SQL runs; never two at once', async () => {
    const lease = { TICKFLOW_LEASE_SECONDS: '6' };
    const { a, id } = await stallingWorkerRunning(lease, { handler: 'sql', config: { sql: 'select pg_sleep(40) /* fence */' } });
    const running = async () =>
      (await t.pool.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%pg_sleep(40) /* fence */%' AND pid <> pg_backend_pid() ORDER BY backend_start`,
      )).rows.map((r) => r.pid);
    const [first] = await waitFor(async () => ((await running()).length === 1 ? running() : undefined), 30_000, 'attempt 1\'s statement running');
    const b = start({ ...lease, TICKFLOW_NODE_NAME: 'takes-over' });
    await b.ready;

    a.child.kill('SIGSTOP');
    let most = 0;
    try {
      // Until attempt 2's statement runs: the user's SQL is never active in two backends.
      const second = await waitFor(async () => {
        const now = await running();
        most = Math.max(most, now.length);
        return now.find((pid) => pid !== first);
      }, 30_000, 'attempt 2\'s statement running', 50);
      expect(second).not.toBe(first);
      expect(most).toBe(1);
      expect(await running()).toEqual([second]);
    } finally {
      a.child.kill('SIGCONT');
    }
    expect(await t.db.task.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'running', attempt: 2 });
    // the attempt's log says what it did (its lines are flushed in batches)
    const said = await waitFor(async () => {
      const r = await t.pool.query<{ text: string }>(`SELECT text FROM task_log_lines WHERE task_id = $1 AND attempt = 2 AND text LIKE 'an earlier attempt%'`, [id]);
      return r.rows[0]?.text;
    }, 10_000, 'attempt 2\'s line about the earlier statement');
    expect(said).toMatch(new RegExp(`^an earlier attempt's statement was still running on connection default .*: ended backend ${first}$`));
  }, 90_000);

  it('SIGSTOP of the worker past its lease while its statement ends: woken, it rolls the attempt back instead of committing the work of a task it lost', async () => {
    await t.pool.query('CREATE TABLE stall_marks (label text)');
    const env = { TICKFLOW_LEASE_SECONDS: '6', TICKFLOW_SQL_CONNECTIONS: JSON.stringify({ own: t.url }) };
    const a = start({ ...env, TICKFLOW_NODE_NAME: 'stalls' });
    await a.ready;
    const id = await triggerOneTask(t.db, {
      timeoutSeconds: 300,
      maxRetries: 0,
      steps: [{ handler: 'sql', config: { connection: 'own', sql: "INSERT INTO stall_marks VALUES ('attempt 1'); SELECT pg_sleep(4) /* stall-commit */" } }],
    });
    await waitFor(async () => (await t.pool.query(`SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%stall-commit%' AND pid <> pg_backend_pid()`)).rowCount, 30_000, 'the statement running');
    // Only reaps: the task ends dead when the stopped worker's lease runs out.
    const b = start({ ...env, TICKFLOW_NODE_NAME: 'reaps', TICKFLOW_ROLES: 'reap' });
    await b.ready;
    a.child.kill('SIGSTOP');
    try {
      const dead = await waitFor(async () => {
        const x = await t.db.task.findUniqueOrThrow({ where: { id } });
        return x.status === 'dead' ? x : null;
      }, 30_000, 'the lease reclaimed', 20);
      expect(dead.error).toMatch(/lease expired/);
    } finally {
      // Woken right after the reclaim, before the server's idle-in-transaction timeout (5 s after the
      // statement's end) could end the transaction itself: the worker must not send its COMMIT.
      a.child.kill('SIGCONT');
    }
    await waitFor(async () => (await t.pool.query(`SELECT 1 FROM pg_stat_activity WHERE query LIKE '%stall-commit%' AND pid <> pg_backend_pid()`)).rowCount === 0, 15_000, 'the attempt\'s transaction over');
    expect((await t.pool.query('SELECT label FROM stall_marks')).rows).toEqual([]);
    expect(await t.db.task.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'dead', attempt: 1 });
  }, 90_000);
});
