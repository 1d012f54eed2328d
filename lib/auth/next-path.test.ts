import { describe, expect, it } from 'vitest';
import { loginPathFor, requestedPath, safeNextPath } from './next-path.ts';

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

describe('loginPathFor (a page asked for without a session)', () => {
  it('returns to the page asked for, with its query', () => {
    expect(loginPathFor('/jobs/3f1c?tab=calendar')).toBe('/login?next=%2Fjobs%2F3f1c%3Ftab%3Dcalendar');
    expect(safeNextPath(new URLSearchParams(loginPathFor('/runs?status=failed&q=a%20b').split('?')[1]).get('next'))).toBe('/runs?status=failed&q=a%20b');
  });

  it('plain /login for the overview, no header, or a path that would leave the console', () => {
    expect(loginPathFor('/')).toBe('/login');
    expect(loginPathFor(null)).toBe('/login');
    expect(loginPathFor('//evil.example/x')).toBe('/login');
    expect(loginPathFor('https://evil.example/')).toBe('/login');
  });
});

describe('requestedPath', () => {
  it("leaves out Next's _rsc parameter and keeps the rest", () => {
    expect(requestedPath(new URL('http://h/jobs/1?tab=grid&_rsc=abc'))).toBe('/jobs/1?tab=grid');
    expect(requestedPath(new URL('http://h/runs?_rsc=x'))).toBe('/runs');
    expect(requestedPath(new URL('http://h/'))).toBe('/');
  });
});
