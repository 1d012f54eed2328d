import { Lock } from 'lucide-react';

/** Shown instead of a form when the signed-in role cannot change anything. */
export function ReadOnlyNotice({ message = 'Viewer role: read only. Ask an admin for the operator role to change jobs.' }: { message?: string }) {
  return (
    <div className="flex items-center gap-2 rounded-md border border-zinc-200 bg-white px-4 py-3 text-[13px] text-zinc-600" role="note">
      <Lock className="size-4 text-zinc-500" />
      {message}
    </div>
  );
}
