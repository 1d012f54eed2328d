import { describe, expect, it } from 'vitest';
import { safeNextPath } from './next-path.ts';

describe('safeNextPath (open redirects after login)', () => {
  it.each([
    // the reported ones, as the page receives them (searchParams already decoded)
    ['/\\127.0.0.1:8081/x', '/'],
    ['/\t/evil.example', '/'],
    // the rest of the kind
    ['//evil.example/x', '/'],
    ['/\\/evil.example', '/'],
    ['/\n/evil.example', '/'],
    ['/\r\n//evil.example', '/'],
    ['https://evil.example/', '/'],
    ['javascript:alert(1)', '/'],
    ['evil.example', '/'],
    ['', '/'],
    [null, '/'],
    [undefined, '/'],
    [42, '/'],
    ['/ /evil.example', '/%20/evil.example'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ])('%j -> %s', (input, out) => {
    expect(safeNextPath(input)).toBe(out);
  });

  it('keeps same-origin paths with their query and fragment', () => {
    expect(safeNextPath('/jobs?status=paused#top')).toBe('/jobs?status=paused#top');
    expect(safeNextPath('/runs/3f1c')).toBe('/runs/3f1c');
    expect(safeNextPath('/a/../settings/tokens')).toBe('/settings/tokens');
  });
});
