/** The theme a browser chose: light, dark, or the operating system's (default). */
export type Theme = 'light' | 'dark' | 'system';
/** Cookie holding the choice, read by app/layout.tsx so the server renders the right theme (no flash, no hydration mismatch). */
export const THEME_COOKIE = 'tickflow_theme';

/** The theme a cookie value names; anything else is 'system'. */
export function parseTheme(v: string | undefined | null): Theme {
  return v === 'light' || v === 'dark' ? v : 'system';
}
