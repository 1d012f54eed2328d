'use client';

import { useSyncExternalStore } from 'react';
import { ConfirmDialog } from './ui/dialog';
import { answerQuestion, currentQuestion, subscribeQuestion } from './unsaved-changes';

/**
 * The console's dialog for the questions of components/unsaved-changes.ts (leave with unsaved changes, discard
 * them): one instance, mounted by the Providers, so every page and guard asks in the same place. The cancel button
 * (focused first) and Escape keep the work; the confirm button drops it.
 */
export function UnsavedChangesDialog() {
  // The server never has a question open.
  const q = useSyncExternalStore(subscribeQuestion, currentQuestion, () => null);
  return (
    <ConfirmDialog
      open={q !== null}
      onOpenChange={(o) => {
        if (!o) answerQuestion(false);
      }}
      title={q?.title ?? ''}
      description={q?.message}
      confirmLabel={q?.confirmLabel ?? ''}
      cancelLabel={q?.cancelLabel}
      onConfirm={() => answerQuestion(true)}
    />
  );
}
