'use client';

import * as React from 'react';
import { useRouter } from 'next/navigation';
import { ArchiveRestore, Trash2 } from 'lucide-react';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/dialog';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';

type R<T> = { ok: true; data: T } | { ok: false; error: string; fields?: Record<string, string> };

/**
 * Restore / Purge of a job in the recycle bin: on its read-only page and on each recycle-bin
 * row (`size="sm"`). A restore refused because the key is taken says so in place; a job restored
 * paused because its schedule can no longer fire (`notice`) says so in the toast. After a
 * purge the job no longer exists: `afterPurge` 'back' goes to the recycle bin (the job's page),
 * 'refresh' reloads the list (a row).
 */
export function DeletedJobActions({ jobId, jobKey, restore, purge, size, afterPurge = 'back' }: { jobId: string; jobKey: string; restore: (id: string) => Promise<R<{ id: string; key: string; notice?: string | null }>>; purge: (id: string) => Promise<R<{ key: string }>>; size?: 'sm'; afterPurge?: 'back' | 'refresh' }) {
  const router = useRouter();
  const { toast } = useToast();
  const [busy, setBusy] = React.useState(false);
  const [error, setError] = React.useState<string | null>(null);
  return (
    <div className={size === 'sm' ? 'flex items-center justify-end gap-2' : 'flex items-center gap-2'}>
      {error ? (
        <span role="alert" className="max-w-xs text-xs text-red-700" data-testid="restore-error">
          {error}
        </span>
      ) : null}
      <RoleGate>
        <Button
          size={size}
          variant={size === 'sm' ? undefined : 'primary'}
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            const r = await restore(jobId);
            setBusy(false);
            if (r.ok) {
              setError(null);
              toast(r.data.notice ? { kind: 'info', title: `${r.data.key} restored, paused`, description: r.data.notice } : { kind: 'success', title: `${r.data.key} restored` });
              router.refresh();
            } else {
              const msg = r.fields?.key ? `Key ${jobKey} is now used by another job: rename or delete that job first.` : r.error;
              setError(msg);
              toast({ kind: 'error', title: 'Restore failed', description: msg });
            }
          }}
        >
          <ArchiveRestore /> Restore
        </Button>
      </RoleGate>
      <RoleGate>
        <ConfirmDialog
          trigger={
            <Button size={size} variant="danger-outline" disabled={busy}>
              <Trash2 /> Purge
            </Button>
          }
          title={`Purge ${jobKey} for good?`}
          description="The job, its steps and version history are deleted permanently. Its runs and task logs stay. This cannot be undone."
          confirmLabel="Purge"
          cancelLabel="Keep in recycle bin"
          onConfirm={async () => {
            const r = await purge(jobId);
            if (r.ok) {
              toast({ kind: 'success', title: `${r.data.key} purged` });
              if (afterPurge === 'back') router.push('/recycle-bin');
              else router.refresh();
            } else toast({ kind: 'error', title: 'Purge failed', description: r.error });
          }}
        />
      </RoleGate>
    </div>
  );
}
