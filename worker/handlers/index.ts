/**
 * The handler registry: name -> handler. A worker advertises the names it holds
 * in `worker_nodes.handlers`, and only claims tasks whose handler it can run.
 *
 * Built-ins: builtin.noop, builtin.echo, builtin.sleep, builtin.fail,
 * builtin.flaky, builtin.ignore-abort (test helper); executors: http, shell
 * (refused unless allowShell), sql, grpc. Handler modules (defineHandler) come in
 * through `extra` (worker/handlers/module-loader.ts).
 */
import * as builtin from './builtin.ts';
import { grpcHandler } from './grpc.ts';
import { http } from './http.ts';
import { createShellHandler } from './shell.ts';
import type { ShellGuardian } from './shell-guardian.ts';
import { createSqlHandler } from './sql.ts';
import { sqlLiveness } from './sql-attempt-settings.ts';
import type { Handler } from './types.ts';
import type { Logger } from 'pino';

export * from './types.ts';
export { createSqlHandler, parseSqlConnections } from './sql.ts';
export { SQL_RUNNER_PASSWORD_SETTING, sqlRunnerRoleName } from './sql-restricted-role.ts';

export interface HandlerRegistryOptions {
  allowShell?: boolean;
  /** grace between SIGTERM and SIGKILL for shell tasks (ms) */
  shellKillGraceMs?: number;
  /** the task log's line size (bytes): a shell program's longer lines are split at it */
  taskLogMaxLineBytes?: number;
  /** the shell guardian of this worker (default: the process's, shell-guardian.ts shellGuardian) */
  shellGuardian?: ShellGuardian;
  /** Tickflow's own database url (the sql executor's `default` connection) */
  databaseUrl?: string;
  sqlConnections?: Record<string, string>;
  /** this worker's lease (s) and heartbeat (ms): how fast a dead worker's sql statement must end (sql-attempt-settings.ts sqlLiveness) */
  lease?: { leaseSeconds: number; heartbeatMs: number };
  /** extra or overriding handlers (embedding applications, tests) */
  extra?: Record<string, Handler>;
  /** where executors log what belongs to no attempt (the sql executor's role guard) */
  logger?: Logger;
}

export interface HandlerRegistry {
  get(name: string): Handler | undefined;
  /** every name the registry holds, sorted */
  names(): string[];
  /**
   * names held only to fail their tasks with a clear error (`shell` without allowShell):
   * the worker does not advertise them and claims their tasks only while no live worker
   * offers them (lib/engine ClaimInput.fallbackHandlers)
   */
  disabled(): string[];
  close(): Promise<void>;
}

export function createHandlerRegistry(options: HandlerRegistryOptions = {}): HandlerRegistry {
  const sql = createSqlHandler({
    defaultUrl: options.databaseUrl,
    connections: options.sqlConnections,
    ...(options.lease ? { liveness: sqlLiveness(options.lease.leaseSeconds, options.lease.heartbeatMs) } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const map = new Map<string, Handler>([
    ['builtin.noop', builtin.noop],
    ['builtin.echo', builtin.echo],
    ['builtin.sleep', builtin.sleep],
    ['builtin.fail', builtin.fail],
    ['builtin.flaky', builtin.flaky],
    ['builtin.ignore-abort', builtin.ignoreAbort],
    ['http', http],
    // Registered even when disabled, so that with no worker able to run it such a task
    // fails with a clear error instead of waiting forever (disabled() below).
    ['shell', createShellHandler({ allowShell: options.allowShell ?? false, killGraceMs: options.shellKillGraceMs, maxLineBytes: options.taskLogMaxLineBytes, guardian: options.shellGuardian })],
    ['sql', sql.handler],
    ['grpc', grpcHandler],
  ]);
  for (const [name, h] of Object.entries(options.extra ?? {})) map.set(name, h);
  return {
    get: (name) => map.get(name),
    names: () => [...map.keys()].sort(),
    disabled: () => (options.allowShell || options.extra?.shell ? [] : ['shell']),
    close: () => sql.close(),
  };
}
