import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { Providers } from '@/components/providers';
import { parseTheme, THEME_COOKIE } from '@/components/theme';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Tickflow', template: '%s · Tickflow' },
  description: 'Job scheduler and DAG orchestrator on PostgreSQL',
};

/**
 * Root layout: fonts come from the system stack; providers wrap every page (login included).
 * `data-theme` comes from the tickflow_theme cookie (components/theme-toggle.tsx), so the server
 * renders the chosen theme and the browser paints it at once; `system` follows the browser's
 * prefers-color-scheme in CSS alone (app/theme-dark.css), so no script runs before paint.
 */
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" data-theme={theme}>
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
