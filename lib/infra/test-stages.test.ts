import { describe, expect, it } from 'vitest';
import { parseTestArgs } from './test-stages.ts';

describe('parseTestArgs (npm test)', () => {
  it('runs every stage without arguments, and the listed ones with --only', () => {
    expect(parseTestArgs([])).toEqual({ ok: true, only: null });
    expect(parseTestArgs(['--only', 'unit,integration'])).toEqual({ ok: true, only: new Set(['unit', 'integration']) });
    expect(parseTestArgs(['--only=typecheck'])).toEqual({ ok: true, only: new Set(['typecheck']) });
  });

  it('refuses what it cannot read rather than running every stage', () => {
    expect(parseTestArgs(['--onyl', 'unit'])).toEqual({ ok: false, message: 'unknown option --onyl' });
    expect(parseTestArgs(['--only'])).toEqual({ ok: false, message: '--only needs a list of stages' });
    expect(parseTestArgs(['--only='])).toEqual({ ok: false, message: '--only needs a list of stages' });
    // `npm test unit`
    expect(parseTestArgs(['unit'])).toMatchObject({ ok: false, message: expect.stringContaining('npm test -- --only unit') });
    expect(parseTestArgs(['--only', 'unit,e2ee'])).toEqual({ ok: false, message: 'unknown stage "e2ee" in --only (stages: typecheck, unit, integration, e2e)' });
  });
});
