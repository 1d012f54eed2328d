/**
 * Loads handler modules named by TICKFLOW_HANDLERS (docs/handlers.md): a comma-separated
 * list of files or folders (a folder means its `*.ts|*.mts|*.js|*.mjs` files, sorted,
 * not recursive; `*.test.*` and `*.d.ts` skipped). Relative paths are resolved against
 * the worker's working directory. TypeScript loads through tsx: the source worker runs
 * under it already (`--import tsx`, vitest), the compiled worker (lib/infra/worker-build.ts)
 * registers it here, only when handler modules are configured. `tickflow/handlers`
 * resolves from any folder (resolve-hook.mjs) to this checkout's public module: the
 * source file worker/handlers/define.ts, or in the compiled worker the files beside its
 * bundle that hand out the worker's own instance of it.
 *
 * All or nothing: every module is imported and every definition checked before the
 * worker registers anything; any problem — a module that fails to import, exports no
 * handler definition, a name defined twice (in one file or two) or a built-in name, a
 * schema without a JSON Schema form — throws one HandlerModuleError listing each problem
 * with its file and handler, and the worker does not start.
 */
import { readdirSync, statSync } from 'node:fs';
import Module, { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as publicModule from './define.ts';
import { isHandlerDefinition, type HandlerDefinition } from './define.ts';
import { handlerSpec, toHandler, type HandlerSpec } from './function-executor.ts';
import type { Handler } from './types.ts';

/** One or more problems with the configured handler modules (message: one line per problem). */
export class HandlerModuleError extends Error {
  constructor(readonly problems: string[]) {
    super(`cannot load handler modules (TICKFLOW_HANDLERS):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'HandlerModuleError';
  }
}

export interface LoadedHandlers {
  handlers: Record<string, Handler>;
  specs: Record<string, HandlerSpec>;
  /** handler name -> the file that defines it */
  files: Record<string, string>;
}

/** Splits TICKFLOW_HANDLERS (`a.ts, ./dir`) into entries; blanks dropped. */
export function parseHandlerModulesEnv(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const MODULE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const SKIPPED_FILE = /(\.test\.|\.spec\.|\.d\.ts$)/;

/** Files of the entries, absolute, in order (folders expanded). Missing paths are problems. */
function expand(entries: readonly string[], cwd: string, problems: string[]): string[] {
  const files: string[] = [];
  for (const entry of entries) {
    const abs = path.resolve(cwd, entry);
    let st;
    try {
      st = statSync(abs);
    } catch {
      problems.push(`${entry}: no such file or folder (resolved to ${abs})`);
      continue;
    }
    if (st.isDirectory()) {
      const inside = readdirSync(abs)
        .filter((f) => MODULE_FILE.test(f) && !SKIPPED_FILE.test(f))
        .sort()
        .map((f) => path.join(abs, f));
      if (inside.length === 0) problems.push(`${entry}: folder holds no .ts/.mts/.js/.mjs module`);
      files.push(...inside);
    } else files.push(abs);
  }
  return [...new Set(files)];
}

/**
 * True in the compiled worker (lib/infra/worker-build.ts bundles this file into a `.mjs`),
 * false when this TypeScript file runs under tsx or vitest.
 */
const compiled = !import.meta.url.endsWith('.ts');

/**
 * Where `tickflow/handlers` resolves: for ESM handler modules and for CommonJS ones
 * (`require`). The compiled worker's files are written beside its bundle by its build.
 */
function publicModuleFiles(): { esm: string; cjs: string } {
  if (!compiled) {
    const source = path.join(import.meta.dirname, 'define.ts');
    return { esm: source, cjs: source };
  }
  return { esm: path.join(import.meta.dirname, 'handlers.mjs'), cjs: path.join(import.meta.dirname, 'handlers.cjs') };
}

/** The symbol under which the compiled worker publishes its instance of define.ts for the files of publicModuleFiles. */
const PUBLIC_MODULE_KEY = Symbol.for('tickflow.handlersModule');

let resolutionInstalled: Promise<void> | null = null;
/**
 * Makes `tickflow/handlers` resolvable from any folder, for ESM and CommonJS handler modules,
 * and TypeScript loadable. The compiled worker registers tsx here (its ESM and CommonJS
 * hooks, as `--import tsx` does) before the resolve hook, which runs first and hands its
 * result on to tsx.
 */
function installResolution(): Promise<void> {
  resolutionInstalled ??= (async () => {
    const files = publicModuleFiles();
    if (compiled) {
      (globalThis as Record<symbol, unknown>)[PUBLIC_MODULE_KEY] = publicModule;
      // A variable specifier: tsx has no type declarations for its loader entry.
      const typeScriptLoader = 'tsx';
      await import(typeScriptLoader);
    }
    register(pathToFileURL(path.join(import.meta.dirname, 'resolve-hook.mjs')).href, { data: { target: pathToFileURL(files.esm).href } });
    // A .ts file in a folder without "type": "module" is loaded as CommonJS by tsx; its
    // require() goes through Module._resolveFilename, which the ESM hook above never sees.
    const M = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
    const original = M._resolveFilename;
    M._resolveFilename = function (request: string, ...rest: unknown[]) {
      return request === 'tickflow/handlers' ? files.cjs : original.call(this, request, ...rest);
    };
  })();
  return resolutionInstalled;
}

/** Every handler definition a module namespace exports (default, named, arrays of them; CommonJS exports objects too). */
function definitionsOf(ns: Record<string, unknown>): HandlerDefinition[] {
  const found = new Set<HandlerDefinition>();
  const visit = (v: unknown, depth: number) => {
    if (isHandlerDefinition(v)) found.add(v);
    else if (Array.isArray(v)) v.forEach((x) => isHandlerDefinition(x) && found.add(x));
    else if (depth === 0 && v && typeof v === 'object') Object.values(v).forEach((x) => visit(x, 1));
  };
  for (const [k, v] of Object.entries(ns)) visit(v, k === 'default' || k === 'module.exports' ? 0 : 1);
  return [...found];
}

/** The longest one handler module's import (its top-level code) may take before the worker gives up on it. */
export const MODULE_LOAD_TIMEOUT_MS = 30_000;

class ModuleLoadTimeout extends Error {
  constructor(ms: number) {
    super(`did not finish loading within ${ms / 1000} s (a top-level await that never settles?)`);
  }
}

/** One line for an import failure; the TypeScript loader puts the location on the message's second line. */
function describe(err: unknown): string {
  const e = err as Error;
  const lines = (e?.message ?? String(err)).split('\n').map((l) => l.trim()).filter(Boolean).slice(0, 4);
  const text = lines.join(' ').slice(0, 1000);
  return e?.name && e.name !== 'Error' ? `${e.name}: ${text}` : text;
}

/**
 * Imports the modules and returns their handlers and specs, or throws.
 * @param entries files/folders (TICKFLOW_HANDLERS entries)
 * @param opts.reservedNames names already taken (built-ins, system handlers)
 * @param opts.cwd base of relative entries (default process.cwd())
 * @param opts.loadTimeoutMs the longest one module's import may take (default MODULE_LOAD_TIMEOUT_MS)
 * @throws HandlerModuleError listing every problem, each naming its file (and handler)
 */
export async function loadHandlerModules(entries: readonly string[], opts: { reservedNames: Iterable<string>; cwd?: string; loadTimeoutMs?: number }): Promise<LoadedHandlers> {
  const problems: string[] = [];
  const files = expand(entries, opts.cwd ?? process.cwd(), problems);
  const reserved = new Set(opts.reservedNames);
  const out: LoadedHandlers = { handlers: {}, specs: {}, files: {} };
  if (files.length) await installResolution();
  for (const file of files) {
    let ns: Record<string, unknown>;
    const ms = opts.loadTimeoutMs ?? MODULE_LOAD_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      // A top-level await that never settles leaves the import pending: with nothing else holding the
      // event loop the worker would exit 0 without a word (not the exit 2 that stops `npm start`), and with
      // something else it would never register. The timer holds the loop and bounds the wait.
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ModuleLoadTimeout(ms)), ms);
      });
      ns = (await Promise.race([import(pathToFileURL(file).href), timedOut])) as Record<string, unknown>;
    } catch (err) {
      problems.push(`${file}: ${err instanceof ModuleLoadTimeout ? err.message : `failed to load: ${describe(err)}`}`);
      if (err instanceof ModuleLoadTimeout) break; // the pending import may never settle: the worker stops now
      continue;
    } finally {
      clearTimeout(timer);
    }
    const defs = definitionsOf(ns);
    if (defs.length === 0) {
      problems.push(`${file}: exports no handler (export the result of defineHandler from "tickflow/handlers")`);
      continue;
    }
    for (const def of defs) {
      if (reserved.has(def.name)) {
        problems.push(`${file}: handler "${def.name}" has the name of a built-in handler; choose another name`);
        continue;
      }
      const other = out.files[def.name];
      if (other) {
        problems.push(`${file}: handler "${def.name}" is defined twice (${other === file ? 'twice in this file' : `also in ${other}`})`);
        continue;
      }
      try {
        out.specs[def.name] = handlerSpec(def);
      } catch (err) {
        problems.push(`${file}: ${(err as Error).message}`);
        continue;
      }
      out.handlers[def.name] = toHandler(def);
      out.files[def.name] = file;
    }
  }
  if (problems.length) throw new HandlerModuleError(problems);
  return out;
}
