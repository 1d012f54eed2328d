'use client';
// One guard for unsaved work, covering every way out of a page: reload/close (the browser's own prompt), in-app
// links (Next's client navigation never fires beforeunload), the browser's Back button (a same-URL history entry
// the Back press pops first, so the page can ask before really leaving) and in-page switches that unmount the
// editor (the job page's tabs call confirmLeave()).
import { useEffect, useRef } from 'react';

// Every mounted guard's current message, or null while its work is saved.
const guards = new Map<symbol, () => string | null>();
// True while the extra history entry pushed by a dirty guard is the current one.
let sentinel = false;
// Set once the operator agreed to leave, so the other ways out do not ask again on the way.
let leaving = false;

/** The message of the first guard with unsaved work, or null. */
export function unsavedMessage(): string | null {
  for (const g of guards.values()) {
    const m = g();
    if (m) return m;
  }
  return null;
}

/**
 * Asks the operator (window.confirm) whether to leave when some mounted guard has unsaved work. Returns true when
 * there is nothing unsaved or the operator agreed; call it before an in-page change that would drop the work.
 */
export function confirmLeave(): boolean {
  if (leaving) return true;
  const m = unsavedMessage();
  return m === null || window.confirm(m);
}

/**
 * Guards the page while `dirty`: reload/close, clicks on in-app links, Back, and {@link confirmLeave} callers ask
 * `message` first (OK leaves and the work is dropped; Cancel stays with the work intact).
 */
export function useUnsavedChangesGuard(dirty: boolean, message: string): void {
  const state = useRef({ dirty, message });
  state.current = { dirty, message };

  useEffect(() => {
    const id = Symbol('unsaved-changes');
    guards.set(id, () => (state.current.dirty ? state.current.message : null));
    leaving = false;
    // Back pops the sentinel entry (same URL, so nothing moves); then we ask. OK: go back for real. Cancel: arm
    // again. Saved meanwhile: carry on with the Back the operator asked for.
    const onPopState = () => {
      if (!sentinel) return;
      sentinel = false;
      if (!state.current.dirty || leaving || window.confirm(state.current.message)) {
        leaving = state.current.dirty;
        window.history.back();
        return;
      }
      window.history.pushState(window.history.state, '', window.location.href);
      sentinel = true;
    };
    window.addEventListener('popstate', onPopState);
    return () => {
      guards.delete(id);
      window.removeEventListener('popstate', onPopState);
      // The entry stays in the history (it cannot be removed); it is an ordinary entry of this page from now on.
      sentinel = false;
    };
  }, []);

  useEffect(() => {
    if (!dirty) return;
    if (!sentinel) {
      window.history.pushState(window.history.state, '', window.location.href);
      sentinel = true;
    }
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (leaving) return;
      e.preventDefault();
      e.returnValue = '';
    };
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a || a.target === '_blank' || a.getAttribute('href')?.startsWith('#')) return;
      if (confirmLeave()) {
        leaving = true;
        return;
      }
      e.preventDefault();
      e.stopPropagation();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [dirty]);
}
