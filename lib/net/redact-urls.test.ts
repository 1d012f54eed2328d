import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlsIn } from './redact-urls.ts';

describe('URLs in stored text lose what may carry a secret (lib/net/redact-urls.ts)', () => {
  it('drops credentials, the query and the fragment; keeps the path unless told not to', () => {
    expect(redactUrl('http://user:secretpw@127.0.0.1:3581/api/v1/health/x?token=SECRET123#frag')).toBe('http://127.0.0.1:3581/api/v1/health/x?…#…');
    expect(redactUrl('https://example.com')).toBe('https://example.com');
    expect(redactUrl('https://example.com/a/b')).toBe('https://example.com/a/b');
    expect(redactUrl('https://hooks.slack.com/services/T0/B0/XYZ', { keepPath: false })).toBe('https://hooks.slack.com/…');
    expect(redactUrl('not a url')).toBe('…');
  });

  it('finds every URL in an error message, however it is quoted', () => {
    const undici = 'Request cannot be constructed from a URL that includes credentials: http://user:secretpw@127.0.0.1:3581/api/v1/health/x?token=SECRET123#frag';
    const out = redactUrlsIn(undici);
    expect(out).toBe('Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:3581/api/v1/health/x?…#…');
    expect(out).not.toMatch(/secretpw|SECRET123|user:/);
    expect(redactUrlsIn(`fetch "https://a.example/x?k=1" then 'http://u:p@b.example/'`)).toBe(`fetch "https://a.example/x?…" then 'http://b.example'`);
    expect(redactUrlsIn('no url here: connect ECONNREFUSED 127.0.0.1:80')).toBe('no url here: connect ECONNREFUSED 127.0.0.1:80');
  });
});
