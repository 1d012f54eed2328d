import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import type { DefinedAction } from './define-action';
import { filesUnder, isSourceFile } from '../../tests/helpers/files-under.ts';

// Every action runs as an admin here: what is checked is the arguments, before any domain function (no database).
const session = vi.hoisted(() => ({ signOut: vi.fn(async () => undefined) }));
vi.mock('@/app/_lib/session', () => ({
  getActor: async () => ({ kind: 'user', id: '00000000-0000-4000-8000-000000000001', name: 'admin@test', role: 'admin' }),
  signOut: session.signOut,
  signIn: async () => undefined,
}));
vi.mock('next/cache', () => ({ revalidatePath: () => undefined }));
delete process.env.DATABASE_URL; // no database probe

const APP = path.resolve(import.meta.dirname, '..');

/** Every 'use server' module under app/. */
function actionFiles(): string[] {
  return filesUnder(APP, (name, full) => isSourceFile(name) && /^'use server';/m.test(readFileSync(full, 'utf8')));
}

type Action = ((...a: unknown[]) => Promise<unknown>) & Partial<DefinedAction>;

async function allActions(): Promise<[string, Action][]> {
  const out: [string, Action][] = [];
  for (const file of actionFiles()) {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, Action>;
    for (const [name, action] of Object.entries(mod)) out.push([`${path.relative(APP, file)} ${name}`, action]);
  }
  return out;
}

describe('server actions parse their arguments (app/_actions/define-action.ts actionArgs)', () => {
  it('every exported action declares a schema per argument, and refuses a malformed call naming the field, never "unexpectedly"', async () => {
    const actions = await allActions();
    expect(actions.length).toBeGreaterThan(30);
    for (const [label, action] of actions) {
      expect(action.args, `${label} is made with defineAction/publicAction and actionArgs`).toBeDefined();
      expect(action.args!.names.length, label).toBe(action.args!.schemas.length);
      if (action.operation === 'session.signIn' || action.operation === 'session.signOut') continue;
      // one argument too many: refused before the domain function runs, whatever the arguments' schemas accept
      const r = (await action(...Array.from({ length: action.args!.names.length + 1 }, () => 1))) as { ok: boolean; code?: string; fields?: Record<string, string>; error?: string };
      expect(r, label).toMatchObject({ ok: false, code: 'validation' });
      expect(Object.keys(r.fields ?? {}), label).toContain('_args');
      expect(r.error, label).not.toMatch(/unexpectedly/);
    }
  }, 60_000); // imports every action module (and what they import)

  it('names the field of the examples that used to fail unexpectedly', async () => {
    const { updateJobAction } = await import('@/app/(console)/jobs/[id]/edit/actions');
    const { pauseJobAction, rollbackJobAction } = await import('@/app/(console)/jobs/[id]/actions');
    const id = '00000000-0000-4000-8000-0000000000aa';
    const call = (f: unknown, ...a: unknown[]) => (f as (...x: unknown[]) => Promise<{ ok: boolean; code?: string; fields?: Record<string, string> }>)(...a);
    expect(await call(updateJobAction, 123, null)).toMatchObject({ ok: false, code: 'validation', fields: { id: expect.any(String) } });
    expect(await call(pauseJobAction)).toMatchObject({ ok: false, code: 'validation', fields: { id: expect.any(String) } });
    expect(await call(rollbackJobAction, id, { version: 1, expectedVersion: 'abc' })).toMatchObject({ ok: false, code: 'validation', fields: { expectedVersion: expect.any(String) } });
    expect(await call(rollbackJobAction, id, { version: 1, expectedVersion: -5 })).toMatchObject({ ok: false, code: 'validation', fields: { expectedVersion: expect.any(String) } });
    expect(await call(pauseJobAction, id, 42)).toMatchObject({ ok: false, code: 'validation', fields: { reason: expect.any(String) } });
  });

  it('sign-in and sign-out refuse malformed calls without doing anything', async () => {
    const { signInAction } = await import('@/app/login/actions');
    const { signOutAction } = await import('@/app/(console)/actions');
    expect(await (signInAction as unknown as (a: unknown) => Promise<unknown>)('…')).toMatchObject({ code: 'validation', fields: { form: expect.any(String) } });
    expect(await (signOutAction as unknown as (...a: unknown[]) => Promise<unknown>)(1, 2, 3)).toBeUndefined();
    expect(session.signOut).not.toHaveBeenCalled();
  });
});
