import NextLink from 'next/link';
import type { ComponentProps } from 'react';

/**
 * The console's link: next/link that does not prefetch unless asked to (`prefetch`), used for
 * every link of the console (components/ui/link.test.ts keeps it so).
 *
 * Why: every console page is rendered per request for the signed-in user and has no
 * loading.tsx, so Next's automatic prefetch of a link in view fetches only the route's shell, a
 * few hundred bytes that a click renders again anyway, and yet runs the console layout (its
 * session and display-zone reads) on the server once per link. Measured on the built console
 * (docs/console.md "Links do not prefetch"): about 20 such requests on every page for the
 * sidebar and the tables, 277 for one job's calendar tab (a link per day).
 */
export function Link({ prefetch = false, ...props }: ComponentProps<typeof NextLink>) {
  return <NextLink prefetch={prefetch} {...props} />;
}
