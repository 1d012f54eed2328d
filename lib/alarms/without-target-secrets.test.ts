import { describe, expect, it } from 'vitest';
import { withoutTargetSecrets } from './without-target-secrets.ts';

describe('withoutTargetSecrets', () => {
  const slack = 'https://hooks.example.com/services/T0ABCDEF1/B0ABCDEF2/AbCdEfGhIjKlMnOpQrStUvWx';

  it('hides the path however the receiver quotes it: whole, normalised, one segment, decoded, other case', () => {
    const target = 'http://127.0.0.1:3510/api/v1//hooks//T0PSECRET-TOKEN';
    // the answer a router gave after collapsing the repeated slashes (a 308 to the normal path)
    expect(withoutTargetSecrets('/api/v1/hooks/T0PSECRET-TOKEN', target)).not.toMatch(/T0PSECRET/);
    expect(withoutTargetSecrets('unknown token T0PSECRET-TOKEN', target)).toBe('unknown token …');
    expect(withoutTargetSecrets('unknown token t0psecret-token', target)).toBe('unknown token …');
    expect(withoutTargetSecrets('no channel for B0ABCDEF2', slack)).toBe('no channel for …');
    expect(withoutTargetSecrets('Cannot POST /services/T0ABCDEF1/B0ABCDEF2/AbCdEfGhIjKlMnOpQrStUvWx', slack)).toBe('Cannot POST …');
    const encoded = 'https://hooks.example.com/in/s%C3%A9cret%20value';
    expect(withoutTargetSecrets('bad hook "sécret value"', encoded)).toBe('bad hook "…"');
    expect(withoutTargetSecrets('bad hook s%C3%A9cret%20value', encoded)).toBe('bad hook …');
  });

  it('hides query values, alone or with their name, and the user information', () => {
    const target = 'https://hooks.example.com/notify?channel=ops&token=Zq81xK-secret&x=1';
    expect(withoutTargetSecrets('invalid token Zq81xK-secret', target)).toBe('invalid token …');
    expect(withoutTargetSecrets('bad parameter token=Zq81xK-secret', target)).toBe('bad parameter …');
    expect(withoutTargetSecrets('401 for hook-user', 'https://hook-user:pa55word@hooks.example.com/')).toBe('401 for …');
    expect(withoutTargetSecrets('wrong password pa55word', 'https://hook-user:pa55word@hooks.example.com/')).toBe('wrong password …');
  });

  it('leaves the rest of the answer readable: short path parts, other words, a target that does not parse', () => {
    const target = 'https://hooks.example.com/v1/hooks/Zq81xK-secret';
    expect(withoutTargetSecrets('{"ok":false,"error":"channel_not_found"} (v1)', target)).toBe('{"ok":false,"error":"channel_not_found"} (v1)');
    expect(withoutTargetSecrets('payload too large', 'not a url')).toBe('payload too large');
    expect(withoutTargetSecrets('payload too large', 'https://hooks.example.com/')).toBe('payload too large');
    // a pattern character in the URL is matched literally, not as a regular expression
    expect(withoutTargetSecrets('bad a.b+c(d) and axb+c(d)', 'https://hooks.example.com/a.b+c(d)')).toBe('bad … and axb+c(d)');
  });
});
