'use client';
// Where the keyboard focus goes when the control that had it goes away. A dialog gives the focus back to the control
// that opened it (components/ui/dialog.tsx); when an action replaces that control (Pause by Resume, Cancel run by
// Retry run, an alarm's Acknowledge by its acknowledgement) the focus would land on <body>, and a keyboard or screen
// reader user would start again from the top of the page. A control names its place with `focusSlot(name)`; the
// control that takes its place (or its neighbour in the same row) carries the same name and gets the focus.
import { useEffect } from 'react';

const SLOT_ATTR = 'data-focus-slot';
const FOCUSABLE = 'button, a[href], input, select, textarea, [tabindex]';
// How long after the focus was lost a control of its slot may still take it: a refresh after an action takes a
// second or two on a loaded console, and a later arrival would pull the focus from wherever the user went.
const KEEP_MS = 10_000;

// The slot of the control that had the focus last (null once the user went elsewhere), that control itself, and
// when the focus was lost.
let lastSlot: string | null = null;
let lastControl: Element | null = null;
let lostAt = 0;

/** The attribute that names a control's place for the focus: give a control and its replacement the same `name`. */
export function focusSlot(name: string): { 'data-focus-slot': string } {
  return { [SLOT_ATTR]: name } as { 'data-focus-slot': string };
}

const slotOf = (el: EventTarget | null): string | null => (el instanceof Element ? (el.closest(`[${SLOT_ATTR}]`)?.getAttribute(SLOT_ATTR) ?? null) : null);
const inDialog = (el: EventTarget | null) => el instanceof Element && !!el.closest('[role="dialog"], [role="alertdialog"]');
const focusable = (el: Element | null | undefined): el is HTMLElement => el instanceof HTMLElement && el.isConnected && !el.matches(':disabled');
const focusLost = () => !document.activeElement || document.activeElement === document.body;

/**
 * Focuses the control that had the focus, when it is still there and enabled, else the first enabled control of the
 * remembered slot (a slot may hold several: an alarm row's Acknowledge and Silence); true when it took the focus.
 * The control itself first: a closing dialog leaves the focus on <body> for a moment before it gives it back, and
 * the slot's first control must not take it from the opener meanwhile.
 */
function focusSlotControl(): boolean {
  if (!lastSlot) return false;
  if (focusable(lastControl) && slotOf(lastControl) === lastSlot) {
    lastControl.focus();
    if (document.activeElement === lastControl) return true;
  }
  for (const el of document.querySelectorAll(`[${SLOT_ATTR}="${CSS.escape(lastSlot)}"]`)) {
    const target = el.matches(FOCUSABLE) ? el : el.querySelector(FOCUSABLE);
    if (focusable(target)) {
      target.focus();
      if (document.activeElement === target) return true;
    }
  }
  return false;
}

/**
 * Gives the focus back to `opener` (the control that opened a dialog); when it is gone or disabled, to the control
 * of its slot, now or as soon as one appears ({@link useFocusKeeper}).
 */
export function returnFocus(opener: Element | null): void {
  if (focusable(opener)) {
    opener.focus();
    return;
  }
  lastSlot = slotOf(opener) ?? lastSlot;
  lastControl = null;
  lostAt = Date.now();
  focusSlotControl();
}

/**
 * Mounted once (components/providers.tsx): remembers the slot of the focused control, and when the focus falls to
 * <body> (the control was removed or disabled) gives it to the slot's control once the page shows one.
 */
export function useFocusKeeper(): void {
  useEffect(() => {
    const onFocusIn = (e: FocusEvent) => {
      lostAt = 0;
      // inside a dialog the opener's slot is kept: the focus comes back to it when the dialog closes
      if (!inDialog(e.target)) {
        lastSlot = slotOf(e.target);
        lastControl = e.target instanceof Element ? e.target : null;
      }
    };
    // a click elsewhere is the user choosing another place: never pull the focus back to the old one
    const onPointerDown = (e: PointerEvent) => {
      if (!inDialog(e.target)) {
        lastSlot = slotOf(e.target);
        lastControl = null;
      }
    };
    const observer = new MutationObserver(() => {
      if (!lastSlot || !focusLost()) return;
      lostAt ||= Date.now();
      if (Date.now() - lostAt > KEEP_MS) lastSlot = null;
      else focusSlotControl();
    });
    document.addEventListener('focusin', onFocusIn);
    document.addEventListener('pointerdown', onPointerDown, true);
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
    return () => {
      document.removeEventListener('focusin', onFocusIn);
      document.removeEventListener('pointerdown', onPointerDown, true);
      observer.disconnect();
    };
  }, []);
}
