import { describe, expect, it } from 'vitest';
import { checkNumberSetting, type NumberSettingRule } from './number-settings.ts';

describe('numeric handler settings (lib/handlers/number-settings.ts checkNumberSetting)', () => {
  const ms: NumberSettingRule = { name: 'ms', min: 0, max: 604_800_000, integer: true, unit: 'ms' };

  it('reads numbers and decimal strings', () => {
    expect(checkNumberSetting(100, ms)).toEqual({ value: 100 });
    expect(checkNumberSetting(' 100 ', ms)).toEqual({ value: 100 });
    expect(checkNumberSetting(undefined, ms)).toEqual({ value: undefined });
  });

  it('refuses what Number() would also read: hex, binary, exponents, Infinity', () => {
    for (const raw of ['0x10', '0b11', '1e3', 'Infinity', '', 'abc']) expect(checkNumberSetting(raw, ms), raw).toHaveProperty('problem');
  });
});
