'use client';
// The DAG editor's message line: an error (refused connection, invalid graph, failed save, with details) until
// dismissed or replaced, or a short success note.
import { Check, CircleAlert, X } from 'lucide-react';

/** What the banner shows. */
export type Banner = { kind: 'error'; message: string; details?: string[] } | { kind: 'success'; message: string };

/** The banner (test ids `dag-alert` for errors, `dag-status` for success); nothing when `banner` is null. */
export function EditorBanner({ banner, onDismiss, className = '' }: { banner: Banner | null; onDismiss(): void; className?: string }) {
  if (!banner) return null;
  if (banner.kind === 'success') {
    return (
      <div role="status" data-testid="dag-status" className={`flex items-center gap-2 rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-[13px] text-emerald-900 shadow-sm ${className}`}>
        <Check className="size-4" /> {banner.message}
      </div>
    );
  }
  return (
    <div role="alert" data-testid="dag-alert" className={`flex max-h-40 items-start gap-2 overflow-y-auto rounded-md border border-red-200 bg-red-50 px-3 py-2 text-[13px] text-red-900 shadow-sm ${className}`}>
      <CircleAlert className="mt-0.5 size-4 shrink-0" />
      <div className="min-w-0 flex-1">
        <div className="font-medium">{banner.message}</div>
        {banner.details?.length ? (
          <ul className="mt-0.5 list-disc pl-4 text-xs">
            {banner.details.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        ) : null}
      </div>
      <button type="button" onClick={onDismiss} aria-label="Dismiss" className="rounded p-0.5 hover:bg-red-100">
        <X className="size-4" />
      </button>
    </div>
  );
}
