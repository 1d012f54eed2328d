/**
 * Whether `url` carries a user name or password (`user:password@host`), read as the WHATWG URL
 * parser reads it, so `http:/u:p@h`, `http:\\u:p@h` and `http:u:p@h` count too. fetch refuses
 * such a URL ("Request cannot be constructed from a URL that includes credentials"), and a job's
 * definition is readable by every role (docs/security.md): the `http` step's URL and a webhook
 * alarm's target are refused with it on save. False for a string the parser cannot read (its
 * own check names that).
 */
export function hasUrlCredentials(url: string): boolean {
  try {
    const p = new URL(url);
    return p.username !== '' || p.password !== '';
  } catch {
    return false;
  }
}
