import { describe, expect, it } from 'vitest';
import { crontabImportRefusal } from './crontab-import-access.ts';

describe('crontabImportRefusal (the console\'s Import crontab page and button)', () => {
  it('an operator is told before filling the form that every imported job runs shell, which only an admin may set', () => {
    expect(crontabImportRefusal({ kind: 'user', role: 'operator' })).toBe(
      "Only an admin may import a crontab: every entry becomes a job running shell, and shell runs programs on the worker host, so only an admin may set or change what it runs. Ask an admin to import it; you may then change the jobs' schedules, pause or resume them.",
    );
  });

  it('an admin may import; a viewer gets the read-only notice instead', () => {
    expect(crontabImportRefusal({ kind: 'user', role: 'admin' })).toBeNull();
    expect(crontabImportRefusal({ kind: 'user', role: 'viewer' })).toBeNull();
  });
});
