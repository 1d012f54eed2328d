import type { Metadata } from 'next';
import { Providers } from '@/components/providers';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Tickflow', template: '%s · Tickflow' },
  description: 'Job scheduler and DAG orchestrator on PostgreSQL',
};

/** Root layout: fonts come from the system stack; providers wrap every page (login included). */
export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
