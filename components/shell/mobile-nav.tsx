'use client';

import { useState } from 'react';
import { Dialog as D } from 'radix-ui';
import { Menu, X } from 'lucide-react';
import { Button } from '../ui/button';
import { Brand, NavLinks } from './sidebar';

/**
 * Below 768 px (Tailwind's `md`) the sidebar gives its width to the page: this button in the top
 * bar opens the same navigation (sidebar.tsx NavLinks) as a panel from the left, a modal dialog
 * (focus kept inside, Escape or a tap outside closes it), which closes again when an entry is
 * followed.
 */
export function MobileNav() {
  const [open, setOpen] = useState(false);
  const close = () => setOpen(false);
  return (
    <D.Root open={open} onOpenChange={setOpen}>
      <D.Trigger asChild>
        <Button variant="ghost" size="icon" aria-label="Open navigation" className="md:hidden">
          <Menu />
        </Button>
      </D.Trigger>
      <D.Portal>
        <D.Overlay className="fixed inset-0 z-40 bg-black/30 backdrop-blur-[1px] md:hidden" />
        <D.Content
          aria-label="Navigation"
          aria-describedby={undefined}
          className="fixed inset-y-0 left-0 z-50 flex w-64 max-w-[85vw] flex-col overflow-y-auto border-r border-zinc-200 bg-zinc-50 px-3 py-3 shadow-xl focus:outline-none md:hidden"
        >
          <D.Title className="sr-only">Navigation</D.Title>
          <div className="mb-4 flex items-center justify-between">
            <Brand onNavigate={close} />
            <D.Close asChild>
              <Button variant="ghost" size="icon" aria-label="Close navigation">
                <X />
              </Button>
            </D.Close>
          </div>
          <nav aria-label="Main">
            <NavLinks onNavigate={close} />
          </nav>
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}
