import { TriangleAlert } from 'lucide-react';

/** Inline error for a panel whose data failed to load (the rest of the page still works). */
export function ErrorPanel({ message }: { message: string }) {
  return (
    <div role="alert" className="flex items-start gap-2 px-4 py-6 text-[13px] text-red-700 [overflow-wrap:anywhere]">
      <TriangleAlert className="mt-0.5 size-4 shrink-0" />
      <span>{message}</span>
    </div>
  );
}
