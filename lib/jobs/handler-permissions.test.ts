import { describe, expect, it } from 'vitest';
import type { Actor } from '../auth/actor.ts';
import { assertMayChangeCommand, commandLockOf, identityRefusal, isSystemKey, isSystemName, keyRefusal, locksRouting, nameRefusal, stepPrivilege } from './handler-permissions.ts';

const op: Actor = { kind: 'user', id: 'o', name: 'o', role: 'operator' };
const admin: Actor = { ...op, role: 'admin' };
const system: Actor = { kind: 'system', id: 'system', name: 'system', role: 'admin' };

describe('executor permissions', () => {
  it('classifies handlers', () => {
    expect(stepPrivilege({ handler: 'shell' })?.level).toBe('admin');
    expect(stepPrivilege({ handler: 'system.retention' })?.level).toBe('system');
    expect(stepPrivilege({ handler: 'sql', payload: { sql: 'select 1' } })).toBeNull();
    expect(stepPrivilege({ handler: 'sql', config: { connection: 'prod' } })?.level).toBe('admin');
    expect(stepPrivilege({ handler: 'sql' }, { connection: 'prod' })?.level).toBe('admin');
    expect(stepPrivilege({ handler: 'http' })).toBeNull();
    expect(stepPrivilege({ handler: 'grpc' }, {}, ['grpc'])?.reason).toMatch(/TICKFLOW_PRIVILEGED_HANDLERS/);
  });

  it('a step naming a worker secret in any layer of its settings is an admin\'s to set or change', () => {
    const token = { Authorization: 'Bearer ${{ secrets.API_TOKEN }}' };
    expect(stepPrivilege({ handler: 'http', config: { url: 'https://x.example', headers: token } })).toMatchObject({ level: 'admin', reason: expect.stringMatching(/worker secrets \(API_TOKEN\)/) });
    expect(stepPrivilege({ handler: 'builtin.echo', payload: { a: '${{ secrets.A }}' } }, { b: '${{ secrets.B }}' })?.reason).toMatch(/\(A, B\)/);
    // a Run now override that names one is judged too: an operator could otherwise send it anywhere
    expect(stepPrivilege({ handler: 'http' }, {}, [], { headers: token })?.level).toBe('admin');
    const job = { steps: [{ key: 'main', handler: 'http', config: { url: 'https://x.example', headers: token } }], jobPayload: {} };
    expect(() => assertMayChangeCommand(op, null, job)).toThrow(/Only an admin may/);
    expect(() => assertMayChangeCommand(op, job, { ...job, steps: [{ ...job.steps[0]!, config: { url: 'https://evil.example', headers: token } }] })).toThrow(/Only an admin may/);
    expect(() => assertMayChangeCommand(admin, null, job)).not.toThrow();
    // an operator's harmless job stays theirs; an override adding a reference is not
    const plain = { steps: [{ key: 'main', handler: 'http', config: { url: 'https://x.example' } }], jobPayload: {} };
    expect(() => assertMayChangeCommand(op, plain, { ...plain, runPayload: { headers: token } })).toThrow(/Only an admin may/);
    expect(() => assertMayChangeCommand(op, plain, { ...plain, runPayload: { headers: { X: 'y' } } })).not.toThrow();
  });

  it('an unchanged command passes whoever asks; a changed one needs the handler\'s level', () => {
    const shell = { steps: [{ key: 'main', handler: 'shell', payload: { command: ['/bin/true'] } }], jobPayload: {} };
    expect(() => assertMayChangeCommand(op, shell, { ...shell, steps: [...shell.steps] })).not.toThrow();
    expect(() => assertMayChangeCommand(op, null, shell)).toThrow(/Only an admin may/);
    expect(() => assertMayChangeCommand(admin, null, shell)).not.toThrow();
    const sys = { steps: [{ key: 'main', handler: 'system.retention' }] };
    expect(() => assertMayChangeCommand(admin, null, sys)).toThrow(/Only the system may/);
    expect(() => assertMayChangeCommand(system, null, sys)).not.toThrow();
    // replacing a privileged step with a harmless one is a change of the privileged command
    expect(() => assertMayChangeCommand(op, shell, { steps: [{ key: 'main', handler: 'builtin.noop' }] })).toThrow(/Only an admin may/);
  });

  it('edges are part of the command: a rewiring needs the level of the privileged steps, a reordering of the list does not', () => {
    const steps = [
      { key: 'a', handler: 'shell', payload: { command: ['/bin/true'] } },
      { key: 'b', handler: 'builtin.noop' },
    ];
    const wired = { steps, edges: [{ from: 'a', to: 'b' }] };
    expect(() => assertMayChangeCommand(op, wired, { steps, edges: [{ from: 'b', to: 'a' }] })).toThrow(/Only an admin may/);
    expect(() => assertMayChangeCommand(op, wired, { steps, edges: [{ from: 'a', to: 'b', type: 'on_failure' }] })).toThrow(/Only an admin may/);
    expect(() => assertMayChangeCommand(op, wired, { steps, edges: [] })).toThrow(/Only an admin may/);
    expect(() => assertMayChangeCommand(op, wired, { steps: [...steps].reverse(), edges: [{ from: 'a', to: 'b', type: 'hard' }] })).not.toThrow();
    expect(() => assertMayChangeCommand(admin, wired, { steps, edges: [{ from: 'b', to: 'a' }] })).not.toThrow();
    // a harmless DAG stays an operator's to rewire
    const harmless = { steps: [{ key: 'a', handler: 'builtin.noop' }, { key: 'b', handler: 'builtin.echo' }], edges: [{ from: 'a', to: 'b' }] };
    expect(() => assertMayChangeCommand(op, harmless, { ...harmless, edges: [{ from: 'b', to: 'a' }] })).not.toThrow();
  });

  it('judges a run payload override last, as the task gets it: a step saying connection "" does not hide the override\'s', () => {
    // the reported escalation: an operator's sql job on the default connection, Run now with {"connection": "admin"}
    const job = { steps: [{ key: 'main', handler: 'sql', payload: { sql: 'select 1', connection: '' } }], jobPayload: {} };
    expect(stepPrivilege(job.steps[0]!, {}, [], { connection: 'admin' })?.level).toBe('admin');
    expect(() => assertMayChangeCommand(op, job, { ...job, runPayload: { connection: 'admin', sql: 'select 2' } })).toThrow(/Only an admin may/);
    expect(() => assertMayChangeCommand(admin, job, { ...job, runPayload: { connection: 'admin' } })).not.toThrow();
    // an override that keeps the default connection is an operator's to make
    expect(() => assertMayChangeCommand(op, job, { ...job, runPayload: { sql: 'select 2' } })).not.toThrow();
    expect(() => assertMayChangeCommand(op, job, { ...job, runPayload: { connection: '' } })).not.toThrow();
    // and one that clears a named connection set lower down is judged by the job it overrides (before side)
    const named = { steps: [{ key: 'main', handler: 'sql', config: { connection: 'prod' } }], jobPayload: {} };
    expect(() => assertMayChangeCommand(op, named, { ...named, runPayload: { connection: '' } })).toThrow(/Only an admin may/);
  });

  it('reserves system. keys for the system jobs, and a system job\'s key and name for the system', () => {
    const sys = { steps: [{ handler: 'system.stats-check' }] };
    const noop = { steps: [{ handler: 'builtin.noop' }] };
    // system. and, so that no key passes for one beside it, system with any other separator, or alone
    expect(['system.x', 'System.X', 'SYSTEM.retention', 'system:stats-check', 'system_stats-check', 'system-stats-check', 'system'].every(isSystemKey)).toBe(true);
    expect(['systems.x', 'systemx.stats-check', 'sys.x', 'x.system.y', 'mysystem.x'].some(isSystemKey)).toBe(false);
    // names that read as a system job's, in any case, width or with invisible characters
    expect(['System: stats sanity check', 'system:x', ' SYSTEM - x', 'System.x', 'Ｓｙｓｔｅｍ： x', 'Sys\u200btem: x', 'System \u2013 x'].every(isSystemName)).toBe(true);
    // letters of other scripts that look like Latin ones, and colon look-alikes
    expect(['S\u0443stem: x', '\u0405YSTEM: x', 'Sys\u0442em: x', 'SYST\u0395M: x', 'System\u2236 x'].every(isSystemName)).toBe(true);
    // accents and the rarer look-alikes the confusables table knows (a small latin s, a Cyrillic word)
    expect(['Syst\u00e9m: x', '\ua731ystem: x', '\u0405\u0443\u0455\u0442\u0435\u043c - x'].every(isSystemName)).toBe(true);
    expect(['Systems: x', 'System backup', 'Nightly system: x', 'Systemd timers'].some(isSystemName)).toBe(false);
    expect(nameRefusal(op, 'System: stats sanity check', noop)?.field).toBe('name');
    expect(nameRefusal(admin, 'System: stats sanity check', sys)?.field).toBe('name');
    expect(nameRefusal(system, 'System: stats sanity check', sys)).toBeNull();
    expect(nameRefusal(op, 'Stats sanity check', noop)).toBeNull();
    // a new job: only the system, and only on a system job
    expect(keyRefusal(op, 'system.stats-check', noop)?.field).toBe('key');
    expect(keyRefusal(admin, 'system.stats-check', sys)?.field).toBe('key');
    expect(keyRefusal(system, 'system.stats-check', noop)?.field).toBe('key');
    expect(keyRefusal(system, 'system.stats-check', sys)).toBeNull();
    expect(keyRefusal(op, 'ops.job', noop)).toBeNull();
    // a change: a system job's key and name stay the system's (its own key may be put back)
    const stats = { key: 'system.stats-check', name: 'System: stats sanity check', command: sys };
    expect(identityRefusal(admin, stats, { ...stats, key: 'not.system' })?.field).toBe('key');
    expect(identityRefusal(admin, stats, { ...stats, name: 'Harmless noop' })?.field).toBe('name');
    expect(identityRefusal(op, stats, stats)).toBeNull();
    expect(identityRefusal(system, stats, { ...stats, key: 'system.stats', name: 'x' })).toBeNull();
    expect(identityRefusal(op, { ...stats, key: 'not.system' }, stats)).toBeNull();
    expect(identityRefusal(op, { ...stats, key: 'not.system' }, { ...stats, key: 'system.retention' })?.field).toBe('key');
    // an ordinary job: renamed freely, but never into the namespace; a legacy system. key it already has may stay
    const job = { key: 'ops.job', name: 'Ops', command: noop };
    expect(identityRefusal(op, job, { ...job, key: 'ops.job2', name: 'Ops 2' })).toBeNull();
    expect(identityRefusal(op, job, { ...job, key: 'system.ops' })?.field).toBe('key');
    expect(identityRefusal(op, { ...job, key: 'system.legacy' }, { ...job, key: 'system.legacy', name: 'x' })).toBeNull();
    // nor renamed to read as a system job; a legacy such name it already has may stay
    expect(identityRefusal(op, job, { ...job, name: 'System: stats sanity check' })?.field).toBe('name');
    expect(identityRefusal(op, { ...job, name: 'System: old' }, { ...job, name: 'System: old', key: 'ops.job3' })).toBeNull();
  });
});

describe('routing is part of the command', () => {
  const operator = { kind: 'user', id: 'o', name: 'op', role: 'operator' } as const;
  const shell = { steps: [{ key: 'main', handler: 'shell', payload: { command: ['/bin/true'] } }] };
  it('re-routing a shell job needs an admin; re-routing a harmless one does not', () => {
    expect(() => assertMayChangeCommand(operator, { ...shell, routing: { nodeGroup: 'a' } }, { ...shell, routing: { nodeGroup: 'b' } }, { fieldOf: () => 'routing' })).toThrow(
      expect.objectContaining({ code: 'forbidden', fields: { routing: expect.stringContaining('shell runs programs') } }),
    );
    expect(() => assertMayChangeCommand(operator, { ...shell, routing: { nodeGroup: 'a' } }, { ...shell, routing: { nodeGroup: 'a' } })).not.toThrow();
    const noop = { steps: [{ key: 'main', handler: 'builtin.noop' }] };
    expect(() => assertMayChangeCommand(operator, { ...noop, routing: { nodeGroup: 'a' } }, { ...noop, routing: { labels: { x: '1' } } })).not.toThrow();
  });

  it('a system job is re-routed by an operator or an admin (its handlers run the same on any host), but not re-routed and changed at once', () => {
    const sys = { steps: [{ key: 'main', handler: 'system.stats-check', payload: { days: 3 } }] };
    for (const who of [operator, admin]) {
      expect(() => assertMayChangeCommand(who, { ...sys, routing: {} }, { ...sys, routing: { nodeGroup: 'maintenance' } }, { fieldOf: () => 'routing' })).not.toThrow();
      expect(() => assertMayChangeCommand(who, { ...sys, routing: {} }, { steps: [{ key: 'main', handler: 'system.stats-check', payload: { days: 9 } }], routing: { nodeGroup: 'maintenance' } })).toThrow(/Only the system may/);
    }
    expect(locksRouting(stepPrivilege({ handler: 'system.retention' }))).toBe(false);
    expect(locksRouting(stepPrivilege({ handler: 'shell' }))).toBe(true);
    expect(locksRouting(null)).toBe(false);
  });

  it('commandLockOf names the first step of any position the user may not change', () => {
    const dag = { steps: [{ key: 'a', handler: 'builtin.noop' }, { key: 'b', handler: 'shell' }] };
    expect(commandLockOf(operator, dag, [])).toMatchObject({ level: 'admin', handler: 'shell' });
    expect(commandLockOf({ kind: 'user', role: 'admin' }, dag, [])).toBeNull();
    expect(commandLockOf(operator, { steps: [{ handler: 'sql' }] }, [])).toBeNull();
    expect(commandLockOf(operator, { steps: [{ handler: 'sql' }], jobPayload: { connection: 'warehouse' } }, [])).toMatchObject({ handler: 'sql' });
    expect(commandLockOf(operator, { steps: [{ handler: 'grpc' }] }, ['grpc'])).toMatchObject({ handler: 'grpc' });
  });
});
