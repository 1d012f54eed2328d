/**
 * The deployment recipes (README "Operations", docs/operations.md "systemd" and "Containers"):
 * `Dockerfile`, `.dockerignore`, `scripts/deploy/*.service`, `scripts/deploy/compose.yaml`.
 * Neither systemd nor Docker forgives a comment after a value (it becomes part of the value: a
 * `KillMode=mixed   # …` that systemd ignores, a `CMD [...]   # …` that is no longer JSON and runs
 * through a shell), so these checks read the files as those tools do. The README shows the unit
 * and the Dockerfile: its blocks must stay equal to the files.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const UNITS = ['scripts/deploy/tickflow.service', 'scripts/deploy/tickflow-worker.service'];

/** A file's logical lines without comments, blank lines and line continuations (Dockerfile rules). */
function dockerInstructions(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    if (!pending && /^\s*#/.test(raw)) continue;
    if (!pending && raw.trim() === '') continue;
    if (raw.endsWith('\\')) {
      pending += raw.slice(0, -1);
      continue;
    }
    out.push((pending + raw).trim());
    pending = '';
  }
  return out;
}

function systemdAnalyze(): boolean {
  try {
    execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('systemd units', () => {
  it.each(UNITS)('%s: a key=value a line, comments on lines of their own, an orderly stop', (file) => {
    const text = read(file);
    const settings = new Map<string, string>();
    for (const line of text.split('\n')) {
      if (/^\s*([#;].*)?$/.test(line) || /^\[[A-Za-z]+\]$/.test(line)) continue;
      const m = /^([A-Za-z]+)=(.*)$/.exec(line);
      expect(m, `not a key=value line: ${line}`).not.toBeNull();
      expect(m![2], `a comment after the value of ${m![1]}`).not.toMatch(/\s[#;]/);
      settings.set(m![1]!, m![2]!);
    }
    expect(settings.get('KillMode')).toBe('mixed');
    expect(settings.get('KillSignal')).toBe('SIGTERM');
    expect(settings.get('ExecStart')).toMatch(/^\/usr\/bin\/npm (start|run worker)$/);
    // the longest orderly stop at the default 30 s grace (docs/operations.md "systemd")
    const worstStopS = settings.get('ExecStart')!.endsWith('start') ? 30 + 35 : 30 + 5;
    expect(Number(settings.get('TimeoutStopSec'))).toBeGreaterThan(worstStopS);
  });

  it('systemd-analyze verify finds nothing to say (where systemd-analyze is installed)', () => {
    if (!systemdAnalyze()) return;
    const dir = mkdtempSync(path.join(tmpdir(), 'tickflow-units-'));
    try {
      const copies = UNITS.map((f) => {
        const copy = path.join(dir, path.basename(f));
        copyFileSync(path.join(root, f), copy);
        return copy;
      });
      const out = execFileSync('systemd-analyze', ['verify', ...copies], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      expect(out).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Dockerfile', () => {
  const instructions = dockerInstructions(read('Dockerfile'));

  it('exec forms are JSON arrays of strings, and no instruction carries a trailing comment', () => {
    for (const line of instructions) {
      const [keyword] = line.split(/\s/, 1);
      expect(keyword, line).toMatch(/^[A-Z]+$/);
      const exec = /^(?:CMD|ENTRYPOINT|HEALTHCHECK(?:\s+--\S+)*\s+CMD)\s+(\[.*)$/.exec(line);
      if (exec) {
        const parsed: unknown = JSON.parse(exec[1]!);
        expect(Array.isArray(parsed) && parsed.every((p) => typeof p === 'string'), line).toBe(true);
      } else if (!line.startsWith('RUN ')) {
        // in RUN a `#` belongs to the shell; elsewhere it would be part of the value
        expect(line, line).not.toMatch(/\s#/);
      }
    }
    expect(instructions.filter((l) => l.startsWith('CMD '))).toEqual(['CMD ["npm", "start"]']);
  });

  it('runs as an unprivileged user, checks the health route, and copies only files that exist', () => {
    const users = instructions.filter((l) => l.startsWith('USER '));
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^USER (root|0)\b/);
    expect(instructions.some((l) => l.startsWith('HEALTHCHECK ') && l.includes('/api/v1/health'))).toBe(true);
    for (const copy of instructions.filter((l) => l.startsWith('COPY '))) {
      const parts = copy.split(/\s+/).slice(1).filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1)) if (source !== '.') expect(existsSync(path.join(root, source)), `${copy}: ${source}`).toBe(true);
    }
  });

  it('.dockerignore keeps secrets, local data and installed or built files out of the image', () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    for (const entry of ['.tickflow', 'node_modules', '.next', 'dist', '.git', '.env', '.env.*']) expect(ignored).toContain(entry);
  });
});

describe('compose.yaml', () => {
  it('gives each service a stop grace that covers its stop, and turns the console health check off for workers', () => {
    const text = read('scripts/deploy/compose.yaml');
    const [console_, worker] = text.split(/\n  worker:\n/);
    expect(Number(/stop_grace_period: (\d+)s/.exec(console_!)![1])).toBeGreaterThanOrEqual(10);
    expect(Number(/stop_grace_period: (\d+)s/.exec(worker!)![1])).toBeGreaterThanOrEqual(35);
    expect(worker).toMatch(/healthcheck:\n\s+disable: true/);
    expect(worker).toMatch(/command: \["npm", "run", "worker"\]/);
  });
});

describe('README', () => {
  it('shows the unit and the Dockerfile as they are in the repository', () => {
    const readme = read('README.md');
    expect(readme).toContain('```ini\n' + read('scripts/deploy/tickflow.service') + '```');
    expect(readme).toContain('```dockerfile\n' + read('Dockerfile') + '```');
  });
});
