'use client';

import * as React from 'react';
import { Dialog as D, AlertDialog as AD } from 'radix-ui';
import { X } from 'lucide-react';
import { cn } from './cn';
import { Button } from './button';
import { returnFocus } from './focus-return';

// black, not zinc-950: the dark theme mirrors the zinc palette, which made the veil behind a dialog white
const overlay = 'fixed inset-0 z-40 bg-black/30 backdrop-blur-[1px]';
// A dialog quotes operators' and handlers' text (a job key in its title, an alarm's message): a word longer than the
// panel breaks inside it instead of running off the screen.
const content =
  'fixed left-1/2 top-[12vh] z-50 w-[calc(100vw-2rem)] -translate-x-1/2 rounded-lg border border-zinc-200 bg-white p-5 shadow-xl focus:outline-none [overflow-wrap:anywhere]';

/**
 * What a dialog opened without a Radix Trigger (controlled, from a button's onClick) needs to give the focus back on
 * close: Radix returns it to its Trigger only, and without one it lands on <body>. The control focused when the
 * dialog opened is kept, and the focus goes back to it, or to the control that replaced it (focus-return.ts).
 */
function useOpenerFocus(hasTrigger: boolean) {
  const opener = React.useRef<Element | null>(null);
  return {
    onOpenAutoFocus: () => {
      // the dialog has not taken the focus yet: what has it is what opened it
      if (!hasTrigger) opener.current = document.activeElement;
    },
    onCloseAutoFocus: (e: Event) => {
      if (hasTrigger) return;
      e.preventDefault();
      returnFocus(opener.current);
    },
  };
}

/**
 * Modal dialog. Controlled (`open`/`onOpenChange`) or uncontrolled with `trigger`. It opens on its first field (the
 * close button comes last in the tab order), and on close gives the focus back to the control that opened it.
 */
export function Dialog({
  open,
  onOpenChange,
  trigger,
  title,
  description,
  children,
  footer,
  className,
}: {
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  trigger?: React.ReactNode;
  title: React.ReactNode;
  description?: React.ReactNode;
  children?: React.ReactNode;
  footer?: React.ReactNode;
  /** Extra classes for the panel, e.g. a max width ("max-w-lg" is the default). */
  className?: string;
}) {
  const focus = useOpenerFocus(!!trigger);
  return (
    <D.Root open={open} onOpenChange={onOpenChange}>
      {trigger ? <D.Trigger asChild>{trigger}</D.Trigger> : null}
      <D.Portal>
        <D.Overlay className={overlay} />
        <D.Content className={cn(content, 'max-w-lg', className)} aria-describedby={description ? undefined : undefined} {...focus}>
          <div className="mb-3 pr-8">
            <D.Title className="text-[15px] font-semibold text-zinc-900">{title}</D.Title>
            {description ? <D.Description className="mt-1 text-[13px] text-zinc-500">{description}</D.Description> : <D.Description className="sr-only">{title}</D.Description>}
          </div>
          {children}
          {footer ? <div className="mt-4 flex justify-end gap-2">{footer}</div> : null}
          {/* last in the tab order, top right on screen: a dialog opens on its first field (Radix focuses the first
              control), not on the close button */}
          <D.Close asChild>
            <Button variant="ghost" size="icon" aria-label="Close" className="absolute right-4 top-4">
              <X />
            </Button>
          </D.Close>
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}

/**
 * Confirmation dialog for destructive actions. `onConfirm` may be async; the dialog
 * stays open (button busy) until it settles, then closes.
 */
export function ConfirmDialog({
  trigger,
  title,
  description,
  confirmLabel,
  cancelLabel = 'Cancel',
  danger = true,
  onConfirm,
  open,
  onOpenChange,
  disabled,
  'aria-describedby': describedBy,
}: {
  /** The button that opens the dialog (a single element). */
  trigger?: React.ReactElement<{ disabled?: boolean; 'aria-describedby'?: string }>;
  /** Disables the trigger (RoleGate / DisabledReason set this, with the reason's id in aria-describedby). */
  disabled?: boolean;
  'aria-describedby'?: string;
  title: React.ReactNode;
  description?: React.ReactNode;
  confirmLabel: string;
  /** The button that closes without acting; name what is kept when "Cancel" would be ambiguous ("Keep running"). */
  cancelLabel?: string;
  danger?: boolean;
  onConfirm: () => unknown | Promise<unknown>;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
}) {
  const [innerOpen, setInnerOpen] = React.useState(false);
  const isOpen = open ?? innerOpen;
  const setOpen = onOpenChange ?? setInnerOpen;
  const [busy, setBusy] = React.useState(false);
  const focus = useOpenerFocus(!!trigger);
  if (disabled && trigger) return React.cloneElement(trigger, { disabled: true, 'aria-describedby': describedBy });
  return (
    <AD.Root open={isOpen} onOpenChange={setOpen}>
      {trigger ? <AD.Trigger asChild>{trigger}</AD.Trigger> : null}
      <AD.Portal>
        <AD.Overlay className={overlay} />
        <AD.Content className={cn(content, 'max-w-md')} {...focus}>
          <AD.Title className="text-[15px] font-semibold text-zinc-900">{title}</AD.Title>
          <AD.Description className="mt-2 text-[13px] text-zinc-600">{description ?? ''}</AD.Description>
          <div className="mt-5 flex justify-end gap-2">
            <AD.Cancel asChild>
              <Button>{cancelLabel}</Button>
            </AD.Cancel>
            <Button
              variant={danger ? 'danger' : 'primary'}
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                try {
                  await onConfirm();
                } finally {
                  setBusy(false);
                  setOpen(false);
                }
              }}
            >
              {confirmLabel}
            </Button>
          </div>
        </AD.Content>
      </AD.Portal>
    </AD.Root>
  );
}
