import { describe, expect, it } from 'vitest';
import { outboundUrlProblem } from './outbound-url.ts';

describe('outboundUrlProblem', () => {
  it('accepts http(s) URLs written as they are called', () => {
    for (const u of ['https://hooks.example.com/services/T0/B0/xyz', 'http://127.0.0.1:3000/api/v1/health?x=1', 'http://[::1]:8080/', 'https://xn--pple-43d.com/', 'http://my_service:80/hook', 'HTTPS://Example.COM/a#f', 'http://example.com./'])
      expect(outboundUrlProblem(u), u).toBeNull();
  });

  it('refuses an empty host, which the parser would fill in from the path', () => {
    expect(outboundUrlProblem('http:///x')).toMatch(/no host/);
    expect(outboundUrlProblem('https:///')).toMatch(/no host/);
    expect(outboundUrlProblem('http://:80/')).toMatch(/no host|not a valid/);
    expect(outboundUrlProblem('http:x')).toMatch(/absolute http/);
    expect(outboundUrlProblem('http:/x')).toMatch(/absolute http/);
  });

  it('refuses user information, even empty', () => {
    expect(outboundUrlProblem('http://u:p@example.com/')).toMatch(/user name or password/);
    expect(outboundUrlProblem('http://@example.com/')).toMatch(/user name or password/);
    expect(outboundUrlProblem('http://example.com@10.0.0.1/')).toMatch(/user name or password/);
  });

  it('refuses other schemes, white space, control characters and backslashes', () => {
    for (const u of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'javascript:alert(1)', 'example.com/hook'])
      expect(outboundUrlProblem(u), u).toMatch(/absolute http/);
    for (const u of ['http://exa mple.com/', 'http://example.com/\t', ' http://example.com/', 'http://example.com/\n', 'http://example.com/\u0000', 'http://example.com/\u0085'])
      expect(outboundUrlProblem(u), JSON.stringify(u)).toMatch(/spaces|control/);
    expect(outboundUrlProblem('http://example.com\\@10.0.0.1/')).toMatch(/backslash/);
  });

  it('refuses host spellings the parser rewrites: Unicode (IDN), percent-escapes, numeric IPv4 forms', () => {
    expect(outboundUrlProblem('http://аpple.com/')).toMatch(/xn--/); // Cyrillic а
    expect(outboundUrlProblem('http://ex%41mple.com/')).toMatch(/percent/);
    expect(outboundUrlProblem('http://0x7f.1/')).toMatch(/called as 127\.0\.0\.1/);
    expect(outboundUrlProblem('http://2130706433/')).toMatch(/called as 127\.0\.0\.1/);
    expect(outboundUrlProblem('http://127.1/')).toMatch(/called as 127\.0\.0\.1/);
    expect(outboundUrlProblem('http://./x')).toMatch(/valid DNS name/);
    expect(outboundUrlProblem('http://a..b/')).toMatch(/valid DNS name/);
    expect(outboundUrlProblem(`http://${'a'.repeat(64)}.com/`)).toMatch(/valid DNS name/);
  });

  it('refuses ports out of range, empty or zero', () => {
    for (const u of ['http://example.com:0/', 'http://example.com:65536/', 'http://example.com:99999/', 'http://example.com:/', 'http://[::1]:70000/'])
      expect(outboundUrlProblem(u), u).toMatch(/port/);
    expect(outboundUrlProblem('http://example.com:65535/')).toBeNull();
    expect(outboundUrlProblem('http://example.com:1/')).toBeNull();
  });
});
