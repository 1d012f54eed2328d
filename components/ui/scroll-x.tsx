'use client';

import * as React from 'react';
import { cn } from './cn';

/**
 * Keeps `data-more-start` / `data-more-end` on the element `ref` while it has content scrolled out of view on
 * that side, so the `tf-scroll-fade` style fades that edge: a strip or a table cut at the screen's edge then
 * shows that it scrolls sideways (a phone hides its scroll bar until it is touched). Follows scrolling and any
 * change of the element's or its content's size.
 */
export function useScrollEdges(ref: React.RefObject<HTMLElement | null>): void {
  React.useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () => {
      // a pixel of slack: zoomed layouts give fractional scroll positions
      const start = el.scrollLeft > 1;
      const end = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
      el.toggleAttribute('data-more-start', start);
      el.toggleAttribute('data-more-end', end);
    };
    update();
    el.addEventListener('scroll', update, { passive: true });
    const ro = new ResizeObserver(update);
    ro.observe(el);
    for (const child of Array.from(el.children)) ro.observe(child);
    return () => {
      el.removeEventListener('scroll', update);
      ro.disconnect();
    };
  }, [ref]);
}

/**
 * A box that scrolls its content sideways when it is wider than the box, with a fade on the side that has more
 * (useScrollEdges). `relative`: the box is the containing block of absolutely placed content (screen-reader-only
 * text), which would otherwise widen the page beyond a narrow screen instead of scrolling inside the box.
 */
export function ScrollX({ className, children, ...props }: React.HTMLAttributes<HTMLDivElement>) {
  const ref = React.useRef<HTMLDivElement>(null);
  useScrollEdges(ref);
  return (
    <div ref={ref} className={cn('tf-scroll-fade relative overflow-x-auto', className)} {...props}>
      {children}
    </div>
  );
}
