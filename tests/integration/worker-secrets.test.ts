/**
 * Worker secrets (docs/security.md "Worker secrets"): a step's settings name `${{ secrets.NAME }}`,
 * a real in-process worker puts its value in place for the handler only, and masks it in what the
 * attempt leaves: task log lines (text and fields), output and error. The task keeps the reference.
 */
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { triggerJob } from '../../lib/jobs/trigger-job.ts';
import { listTaskLogLines } from '../../lib/task-logs/index.ts';
import { listWorkers } from '../../lib/workers/list-workers.ts';
import { createWorker } from '../../worker/create-worker.ts';
import type { WorkerConfig } from '../../worker/config.ts';
import { HandlerError } from '../../worker/handlers/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { testWorkerConfig, triggerOneTask, useWorkers, waitFor, waitForFinalTask } from './worker-fixtures.ts';

const t = useTestDatabase();
const workers = useWorkers();
const VIEWER: Actor = { kind: 'user', id: 'v', name: 'viewer@example.com', role: 'viewer' };
const TOKEN = 'tok-9f8e7d6c5b4a';
const PEM = '-----BEGIN TEST KEY-----\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldY\n-----END TEST KEY-----';

async function startWorker(over: Partial<WorkerConfig>, handlers = {}) {
  const w = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim', 'reap'], taskLog: { flushMs: 50 }, ...over }), handlers });
  workers.push(w);
  await w.start();
  return w;
}

/** The task's log lines once `last` is among them: the writer flushes them apart from the task's completion. */
const lineTexts = (id: string, last: RegExp) =>
  waitFor(async () => {
    const { lines } = await listTaskLogLines(t.db, id, {}, VIEWER);
    return lines.some((l) => last.test(l.text)) ? lines : null;
  }, 10_000, `task ${id}'s lines`);

describe('worker secrets', () => {
  it('a shell step gets the value in its environment; its output and lines show the mask, its task the reference', async () => {
    await startWorker({ allowShell: true, secrets: new Map([['API_TOKEN', TOKEN]]) });
    const config = { command: ['/bin/sh', '-c', 'printf "%s" "$TOKEN" | wc -c; echo "got $TOKEN"'], env: { TOKEN: '${{ secrets.API_TOKEN }}' } };
    const id = await triggerOneTask(t.db, { key: 'secret-shell', steps: [{ handler: 'shell', config }] });
    const task = await waitForFinalTask(t.db, id);
    expect(task).toMatchObject({ status: 'success', config });
    // the program saw the 16-character value, and nothing stored shows it
    expect(task.output).toMatchObject({ stdout: `${TOKEN.length}\ngot ***\n` });
    const lines = await lineTexts(id, /exited with code 0/);
    expect(lines.map((l) => l.text)).toEqual(expect.arrayContaining(['got ***']));
    expect(JSON.stringify([task, lines])).not.toContain(TOKEN);
    // the workers list names the secrets a worker holds, never their values
    const listed = JSON.stringify(await listWorkers(t.db, VIEWER));
    expect(listed).toContain('"secretNames":["API_TOKEN"]');
    expect(listed).not.toContain(TOKEN);
  });

  it('a shell line longer than the log\'s line size is cut into pieces around a value, never inside it', async () => {
    await startWorker({ allowShell: true, secrets: new Map([['API_TOKEN', TOKEN]]), taskLog: { flushMs: 50, maxLineBytes: 64 } });
    // each line puts the value across the 64-byte cut at another place
    const script = 'for n in 50 55 60 63; do printf "%0${n}d%s%0100d\\n" 0 "$TOKEN" 0; done';
    const id = await triggerOneTask(t.db, { key: 'secret-shell-split', steps: [{ handler: 'shell', config: { command: ['/bin/sh', '-c', script], env: { TOKEN: '${{ secrets.API_TOKEN }}' } } }] });
    expect(await waitForFinalTask(t.db, id)).toMatchObject({ status: 'success' });
    const lines = (await lineTexts(id, /exited with code 0/)).filter((l) => l.stream === 'stdout');
    const text = lines.map((l) => l.text).join('');
    expect(text.match(/\*\*\*/g)).toHaveLength(4);
    // no piece keeps a part of the value: its first or last 4 characters appear nowhere
    expect(text).not.toContain(TOKEN.slice(0, 4));
    expect(text).not.toContain(TOKEN.slice(-4));
  });

  it('a handler\'s lines, fields, output and error are masked, a multi-line value line by line', async () => {
    await startWorker({ secrets: new Map([['API_TOKEN', TOKEN], ['KEY', PEM]]) }, {
      'test.leaky': async (ctx: { config: { token: string; key: string }; taskLog: { info: (t: string, f?: object) => void } }) => {
        ctx.taskLog.info(`calling with ${ctx.config.token}`, { header: `Bearer ${ctx.config.token}`, [ctx.config.token]: 1, n: 123 });
        for (const line of ctx.config.key.split('\n')) ctx.taskLog.info(line);
        throw new HandlerError(`refused: ${ctx.config.token} is expired`, { output: { echoed: { authorization: `Bearer ${ctx.config.token}` } }, retryable: false });
      },
    });
    const id = await triggerOneTask(t.db, { key: 'secret-leaky', steps: [{ handler: 'test.leaky', config: { token: '${{ secrets.API_TOKEN }}', key: '${{ secrets.KEY }}' } }] });
    const task = await waitForFinalTask(t.db, id);
    expect(task).toMatchObject({ status: 'dead', error: 'refused: *** is expired', output: { echoed: { authorization: 'Bearer ***' } } });
    const lines = await lineTexts(id, /^attempt failed/);
    expect(lines[0]).toMatchObject({ text: 'calling with ***', fields: { header: 'Bearer ***', '***': 1, n: 123 } });
    // every line of a multi-line value is masked on its own, its header lines included
    expect(lines.slice(1, 4).map((l) => l.text)).toEqual(['***', '***', '***']);
    expect(lines.at(-1)?.text).toBe('attempt failed: refused: *** is expired');
    expect(JSON.stringify([task, lines])).not.toContain(TOKEN);
    expect(JSON.stringify(lines)).not.toContain('QUJDREVGR0hJSktMTU5PUFFSU1RVVldY');
  });

  it('a value cut by the output preview or the error cap is masked before the cut, as JSON writes it in the preview', async () => {
    const QUOTED = 'pa"ss\\word-4821';
    await startWorker({ secrets: new Map([['API_TOKEN', TOKEN], ['PW', QUOTED]]) }, {
      // values back to back: whatever the caps' exact cut, it falls inside one of them
      'test.big': async (ctx: { config: { pw: string } }) => ({ pw: ctx.config.pw.repeat(70_000) }),
      'test.bigError': async (ctx: { config: { token: string } }) => {
        // the message is cut at 8 KiB less its 50-byte note: the value starts 5 characters before the cut
        throw new HandlerError(`refused: ${'x'.repeat(8192 - 50 - 5 - 9)}${ctx.config.token}${'y'.repeat(200)}`, { retryable: false, output: { token: ctx.config.token.repeat(70_000) } });
      },
    });
    const config = { token: '${{ secrets.API_TOKEN }}', pw: '${{ secrets.PW }}' };
    const big = await waitForFinalTask(t.db, await triggerOneTask(t.db, { key: 'secret-big', steps: [{ handler: 'test.big', config }] }));
    expect(big.output).toMatchObject({ outputTruncated: true, preview: expect.stringMatching(/^\{"pw":"\*\*\*/) });
    const failed = await waitForFinalTask(t.db, await triggerOneTask(t.db, { key: 'secret-big-error', steps: [{ handler: 'test.bigError', config }] }));
    expect(failed).toMatchObject({ status: 'dead', error: expect.stringMatching(/^refused: x+\*\*\*y+ … \[cut: the whole message is longer than 8 KiB\]$/), output: { outputTruncated: true } });
    const texts = [(big.output as { preview: string }).preview, (failed.output as { preview: string }).preview, failed.error!, ...(await lineTexts(failed.id, /^attempt failed/)).map((l) => l.text)];
    // no first part of a value is left at a cut: neither as given nor as JSON escapes it
    for (const text of texts) for (const part of [TOKEN.slice(0, 5), 'pa\\"ss', 'pa"ss']) expect(text).not.toContain(part);
  });

  it('a secret the worker does not hold fails the attempt naming it, and the value of one it holds is not sent', async () => {
    await startWorker({ secrets: new Map([['API_TOKEN', TOKEN]]) });
    const id = await triggerOneTask(t.db, { key: 'secret-missing', steps: [{ handler: 'builtin.echo', payload: { a: '${{ secrets.API_TOKEN }}', b: '${{ secrets.GONE }}' } }] });
    const task = await waitForFinalTask(t.db, id);
    expect(task.status).toBe('dead');
    expect(task.error).toMatch(/^secret GONE not set on this worker \(.+\): set TICKFLOW_SECRET_GONE or a file GONE in TICKFLOW_SECRETS_DIR/);
    expect(task.output).toBeNull();
  });

  it('on save: an operator may not set a step that names a secret, nor add one with Run now; a mistyped reference is refused at its field', async () => {
    const OPERATOR: Actor = { kind: 'user', id: 'o', name: 'operator@example.com', role: 'operator' };
    const ADMIN: Actor = { kind: 'user', id: 'a', name: 'admin@example.com', role: 'admin' };
    const job = (key: string, headers: Record<string, string>) => ({ key, name: key, schedule: { kind: 'manual' }, steps: [{ key: 'main', handler: 'http', config: { url: 'https://example.com/hook', headers } }] });
    await expect(createJob(t.db, job('s.op', { Authorization: 'Bearer ${{ secrets.API_TOKEN }}' }), OPERATOR)).rejects.toMatchObject({ code: 'forbidden', message: expect.stringMatching(/worker secrets \(API_TOKEN\)/) });
    await expect(createJob(t.db, job('s.typo', { Authorization: 'Bearer ${{ secrets.api-token }}' }), ADMIN)).rejects.toMatchObject({
      code: 'validation',
      fields: { 'steps.0.config.headers.Authorization': expect.stringMatching(/starts a secret reference but is not one/) },
    });
    expect(await t.db.job.count({ where: { key: { in: ['s.op', 's.typo'] } } })).toBe(0);
    const plain = await createJob(t.db, job('s.plain', { 'X-Plain': 'yes' }), OPERATOR);
    await expect(triggerJob(t.db, plain.id, { payload: { headers: { Authorization: '${{ secrets.API_TOKEN }}' } } }, OPERATOR)).rejects.toMatchObject({ code: 'forbidden' });
    expect(await createJob(t.db, job('s.admin', { Authorization: 'Bearer ${{ secrets.API_TOKEN }}' }), ADMIN)).toMatchObject({ key: 's.admin' });
  });
});
