'use client';
// One guard for unsaved work, covering every way out of a page: reload/close (the browser's own prompt, the only one
// a browser allows there), in-app links (Next's client navigation never fires beforeunload), the browser's Back
// button (a same-URL history entry the Back press pops first, so the page can ask before really leaving) and in-page
// switches that unmount the editor (the job page's tabs call confirmLeave()). Inside the app the question is the
// console's own dialog (components/unsaved-changes-dialog.tsx, mounted once by the Providers), so it is asynchronous.
import { useEffect, useRef } from 'react';

// Every mounted guard's current message, or null while its work is saved.
const guards = new Map<symbol, () => string | null>();
// True while the extra history entry pushed by a dirty guard is the current one.
let sentinel = false;
// Set once the operator agreed to leave, so the other ways out do not ask again on the way.
let leaving = false;

/** A question to the operator shown by the console's dialog: `title`, `message`, and the two buttons' labels. */
export type LeaveQuestion = { title: string; message: string; confirmLabel: string; cancelLabel: string };

let open: { question: LeaveQuestion; resolve: (ok: boolean) => void } | null = null;
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

/** Subscribes the dialog to the open question (useSyncExternalStore). */
export function subscribeQuestion(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The question the dialog shows now, or null. */
export function currentQuestion(): LeaveQuestion | null {
  return open?.question ?? null;
}

/** The dialog's answer to the open question (true: confirmed); only the first answer counts. */
export function answerQuestion(ok: boolean): void {
  const q = open;
  if (!q) return;
  open = null;
  notify();
  q.resolve(ok);
}

/**
 * Asks `question` in the console's dialog; resolves true when the operator confirms, false on the cancel button,
 * Escape or a newer question.
 */
export function ask(question: LeaveQuestion): Promise<boolean> {
  answerQuestion(false);
  return new Promise((resolve) => {
    open = { question, resolve };
    notify();
  });
}

/** The message of the first guard with unsaved work, or null. */
export function unsavedMessage(): string | null {
  for (const g of guards.values()) {
    const m = g();
    if (m) return m;
  }
  return null;
}

const leaveQuestion = (message: string): LeaveQuestion => ({ title: 'Unsaved changes', message, confirmLabel: 'Leave', cancelLabel: 'Keep editing' });

/**
 * Asks the operator (the console's dialog) whether to leave when some mounted guard has unsaved work. Resolves true
 * when there is nothing unsaved or the operator agreed; await it before an in-page change that would drop the work.
 */
export async function confirmLeave(): Promise<boolean> {
  if (leaving) return true;
  const m = unsavedMessage();
  return m === null || ask(leaveQuestion(m));
}

/**
 * Runs `go` (a reload, a navigation the guard cannot see) once {@link confirmLeave} agreed, without the browser's
 * own reload prompt asking a second time.
 */
export async function leaveThen(go: () => void): Promise<void> {
  if (!(await confirmLeave())) return;
  leaving = true;
  go();
}

/**
 * Guards the page while `dirty`: reload/close ask with the browser's prompt; clicks on in-app links, Back, and
 * {@link confirmLeave} callers ask `message` in the console's dialog (Leave drops the work and goes on; Keep editing
 * stays with the work intact).
 */
export function useUnsavedChangesGuard(dirty: boolean, message: string): void {
  const state = useRef({ dirty, message });
  state.current = { dirty, message };

  useEffect(() => {
    const id = Symbol('unsaved-changes');
    guards.set(id, () => (state.current.dirty ? state.current.message : null));
    leaving = false;
    // Back pops the sentinel entry (same URL, so nothing moves). The entry is pushed again at once, so a second Back
    // while the dialog is open is caught too; Leave then steps back past it and the page's own entry.
    const onPopState = () => {
      if (!sentinel) return;
      sentinel = false;
      if (!state.current.dirty || leaving) {
        leaving = state.current.dirty;
        window.history.back();
        return;
      }
      window.history.pushState(window.history.state, '', window.location.href);
      sentinel = true;
      void ask(leaveQuestion(state.current.message)).then((ok) => {
        if (!ok || !sentinel) return;
        leaving = true;
        sentinel = false;
        window.history.go(-2);
      });
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
      if (leaving || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a || a.target === '_blank' || a.getAttribute('href')?.startsWith('#')) return;
      const m = unsavedMessage();
      if (m === null) return;
      // Held until the operator answers; Leave clicks the same link again, which then goes through as it would have.
      e.preventDefault();
      e.stopPropagation();
      void ask(leaveQuestion(m)).then((ok) => {
        if (!ok) return;
        leaving = true;
        a.click();
      });
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [dirty]);
}
