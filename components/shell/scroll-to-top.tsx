'use client';
import { useLayoutEffect, useRef } from 'react';
import { usePathname } from 'next/navigation';

/**
 * Opens every new console page at its top. The console scrolls in its `<main>`, not in the window, and Next's
 * router only resets the window's scroll, then scrolls the new page's first element to the top of `<main>`: the
 * page opened with `<main>`'s top padding scrolled away, its title touching the top bar, or further down when the
 * page before was scrolled (a Save at the bottom of the job form opened the job page with its header cut off).
 * Placed in `<main>` before the page, so that a page's own scrolling (the run page's `?task=`) comes after it; a
 * change of the query alone (a job page's tabs) or an address with a `#fragment` keeps the scroll.
 */
export function ScrollToTop({ container }: { container: string }) {
  const pathname = usePathname();
  const previous = useRef(pathname);
  useLayoutEffect(() => {
    if (previous.current === pathname) return;
    previous.current = pathname;
    if (window.location.hash) return;
    const main = document.getElementById(container);
    if (main) main.scrollTop = 0;
  }, [pathname, container]);
  return null;
}
