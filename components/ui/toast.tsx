'use client';

import * as React from 'react';
import { CircleCheck, CircleX, Info, X } from 'lucide-react';
import { cn } from './cn';

type ToastKind = 'success' | 'error' | 'info';
type ToastItem = { id: number; kind: ToastKind; title: string; description?: string };
type ToastApi = { toast: (t: Omit<ToastItem, 'id'>) => void };

const ToastContext = React.createContext<ToastApi>({ toast: () => {} });

/** Hook returning `toast({ kind, title, description? })`. Toasts disappear after 5 s (errors after 8 s). */
export function useToast(): ToastApi {
  return React.useContext(ToastContext);
}

/** Provides useToast() and renders the stack bottom-right (a polite live region for screen readers). */
export function Toaster({ children }: { children: React.ReactNode }) {
  const [items, setItems] = React.useState<ToastItem[]>([]);
  const nextId = React.useRef(1);
  const dismiss = React.useCallback((id: number) => setItems((xs) => xs.filter((x) => x.id !== id)), []);
  const api = React.useMemo<ToastApi>(
    () => ({
      toast: (t) => {
        const id = nextId.current++;
        setItems((xs) => [...xs.slice(-4), { ...t, id }]);
        setTimeout(() => dismiss(id), t.kind === 'error' ? 8000 : 5000);
      },
    }),
    [dismiss],
  );
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div aria-live="polite" className="pointer-events-none fixed bottom-4 right-4 z-[60] flex w-80 flex-col gap-2">
        {items.map((t) => (
          <div
            key={t.id}
            role={t.kind === 'error' ? 'alert' : 'status'}
            data-testid="toast"
            className={cn(
              'pointer-events-auto flex items-start gap-2 rounded-md border bg-white p-3 text-[13px] shadow-lg [animation:tf-toast-in_150ms_ease-out]',
              t.kind === 'error' ? 'border-red-200' : 'border-zinc-200',
            )}
          >
            {t.kind === 'success' ? <CircleCheck className="mt-0.5 size-4 shrink-0 text-emerald-600" /> : t.kind === 'error' ? <CircleX className="mt-0.5 size-4 shrink-0 text-red-600" /> : <Info className="mt-0.5 size-4 shrink-0 text-indigo-600" />}
            <div className="min-w-0 flex-1">
              <p className="font-medium text-zinc-900">{t.title}</p>
              {t.description ? <p className="mt-0.5 break-words whitespace-pre-line text-xs text-zinc-600">{t.description}</p> : null}
            </div>
            <button aria-label="Dismiss" onClick={() => dismiss(t.id)} className="text-zinc-500 hover:text-zinc-700">
              <X className="size-3.5" />
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
