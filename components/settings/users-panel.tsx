'use client';

import * as React from 'react';
import { useRouter } from 'next/navigation';
import { KeyRound, Trash2, UserPlus } from 'lucide-react';
import type { UserView } from '@/lib/auth/users';
import { Button } from '../ui/button';
import { ConfirmDialog, Dialog } from '../ui/dialog';
import { DisabledReason } from '../ui/disabled-reason';
import { Card, CardBody, CardHeader } from '../ui/card';
import { DataTable } from '../ui/data-table';
import { Truncate } from '../ui/truncate';
import { Field, controlProps } from '../ui/field';
import { Input, NativeSelect } from '../ui/input';
import { useToast } from '../ui/toast';
import { StatusBadge } from '../status-badge';
import { RelativeTime } from '../time';

type R<T> = { ok: true; data: T } | { ok: false; error: string; fields?: Record<string, string> };
type Role = 'admin' | 'operator' | 'viewer';

/**
 * Users table (role select, Disable/Enable, Reset password, Delete) plus the create-user form with
 * per-field errors. Disable and Delete ask first (Disable revokes the user's API tokens for good). Your own row cannot be disabled or deleted, and neither can the last active
 * admin (the buttons say why; the server refuses too).
 */
export function UsersPanel({
  users,
  selfId,
  create,
  update,
  remove,
  resetPassword,
}: {
  users: UserView[];
  selfId: string;
  create: (input: unknown) => Promise<R<UserView>>;
  update: (id: string, input: unknown) => Promise<R<UserView>>;
  remove: (id: string) => Promise<R<{ id: string }>>;
  resetPassword: (id: string, input: unknown) => Promise<R<{ user: UserView; password?: string }>>;
}) {
  const activeAdmins = users.filter((u) => u.role === 'admin' && !u.disabled).length;
  const isLastAdmin = (u: { role: Role; disabled: boolean }) => u.role === 'admin' && !u.disabled && activeAdmins <= 1;
  const [resetFor, setResetFor] = React.useState<UserView | null>(null);
  const [deleteFor, setDeleteFor] = React.useState<UserView | null>(null);
  const router = useRouter();
  const { toast } = useToast();
  const [form, setForm] = React.useState({ email: '', name: '', password: '', role: 'operator' as Role });
  const [fields, setFields] = React.useState<Record<string, string>>({});
  const [pending, startTransition] = React.useTransition();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const sent = form;
    startTransition(async () => {
      const r = await create({ ...form, name: form.name || undefined });
      if (r.ok) {
        toast({ kind: 'success', title: `User ${r.data.email} created` });
        // emptied only if untouched since it was sent: what was typed while the request ran is the next user
        setForm((now) => (now === sent ? { email: '', name: '', password: '', role: 'operator' } : now));
        setFields({});
        router.refresh();
      } else {
        setFields(r.fields ?? {});
        if (!r.fields) toast({ kind: 'error', title: 'User not created', description: r.error });
      }
    });
  };
  // a role change that gives or takes the admin role is asked first; operator <-> viewer applies at once
  const [roleChange, setRoleChange] = React.useState<{ user: UserView; role: Role } | null>(null);
  const pickRole = (u: UserView, role: Role) => {
    if (role === u.role) return;
    if (role === 'admin' || u.role === 'admin') setRoleChange({ user: u, role });
    else void change(u, { role }, `${u.email} is now ${role}`);
  };
  const change = async (u: UserView, input: { role?: Role; disabled?: boolean }, done: string) => {
    const r = await update(u.id, input);
    if (r.ok) {
      toast({ kind: 'success', title: done });
      router.refresh();
    } else toast({ kind: 'error', title: 'Update failed', description: r.error });
  };

  return (
    // The form sits beside the table only where the table still has room for its buttons (2xl, 1536 px and up);
    // narrower, it goes below, and a table that is still too wide scrolls inside its card.
    <div className="grid grid-cols-1 items-start gap-4 2xl:grid-cols-[minmax(0,1fr)_22rem]">
      <Card className="overflow-hidden" data-testid="users-card">
        <DataTable
          testId="users-table"
          rows={users}
          rowKey={(u) => u.id}
          columns={[
            {
              key: 'email',
              header: 'Email',
              className: 'text-[13px]',
              cell: (u) => (
                <span className="flex items-baseline gap-1.5">
                  <Truncate text={u.email} className="max-w-[18rem]" />
                  {u.id === selfId ? <span className="text-[11px] text-zinc-500">you</span> : null}
                </span>
              ),
            },
            { key: 'name', header: 'Name', className: 'text-zinc-600', cell: (u) => <Truncate text={u.name || '—'} className="max-w-[12rem]" /> },
            {
              key: 'role',
              header: 'Role',
              // the server refuses to demote the last active admin (lib/auth/users.ts): said before the choice, not after
              cell: (u) => (
                <DisabledReason reason={isLastAdmin(u) && 'The last active admin keeps the admin role: make another user admin first'}>
                  <NativeSelect aria-label={`Role of ${u.email}`} className="h-7 w-32 text-xs" value={u.role} onChange={(e) => pickRole(u, e.target.value as Role)}>
                    <option value="admin">admin</option>
                    <option value="operator">operator</option>
                    <option value="viewer">viewer</option>
                  </NativeSelect>
                </DisabledReason>
              ),
            },
            { key: 'status', header: 'Status', cell: (u) => <StatusBadge status={u.disabled ? 'disabled' : 'active'} /> },
            { key: 'lastLogin', header: 'Last login', className: 'text-xs', cell: (u) => <RelativeTime value={u.lastLoginAt} /> },
            {
              key: 'actions',
              header: <span className="sr-only">Actions</span>,
              className: 'whitespace-nowrap text-right',
              cell: (u) => {
                const cannotRemove = u.id === selfId ? 'You cannot disable or delete yourself' : isLastAdmin(u) ? 'The last active admin cannot be disabled or deleted' : null;
                return (
                  <span className="inline-flex gap-1.5">
                    <Button size="sm" onClick={() => setResetFor(u)} aria-label={`Reset password of ${u.email}`}>
                      <KeyRound /> Reset password
                    </Button>
                    {u.disabled ? (
                      <Button size="sm" variant="secondary" onClick={() => change(u, { disabled: false }, `${u.email} enabled`)}>
                        Enable
                      </Button>
                    ) : (
                      // Disabling revokes the user's API tokens (lib/auth/users.ts updateUser), which Enable does not
                      // bring back: asked first, as Delete is.
                      <DisabledReason reason={cannotRemove}>
                        <ConfirmDialog
                          trigger={
                            <Button size="sm" variant="danger-outline" aria-label={`Disable ${u.email}`}>
                              Disable
                            </Button>
                          }
                          title={`Disable ${u.email}?`}
                          description="They are signed out at once and cannot sign in, and their API tokens are revoked. Enable lets them sign in again, but revoked tokens stay revoked: new ones must be created."
                          confirmLabel="Disable user"
                          cancelLabel="Keep active"
                          onConfirm={() => change(u, { disabled: true }, `${u.email} disabled: sessions ended, API tokens revoked`)}
                        />
                      </DisabledReason>
                    )}
                    <DisabledReason reason={cannotRemove}>
                      <Button size="sm" variant="danger-outline" onClick={() => setDeleteFor(u)} aria-label={`Delete ${u.email}`}>
                        <Trash2 /> Delete
                      </Button>
                    </DisabledReason>
                  </span>
                );
              },
            },
          ]}
        />
      </Card>
      <ResetPasswordDialog user={resetFor} selfId={selfId} onClose={() => setResetFor(null)} action={resetPassword} />
      <ConfirmDialog
        open={roleChange !== null}
        onOpenChange={(open) => {
          if (!open) setRoleChange(null);
        }}
        title={roleChange ? `Make ${roleChange.user.email} ${roleChange.role}?` : ''}
        description={
          roleChange?.role === 'admin'
            ? 'Admins manage users and API tokens, change settings, and may run shell steps and SQL on named connections.'
            : `They lose the admin role at once: users, API tokens, settings, shell steps and SQL on named connections${roleChange?.user.id === selfId ? ', for you too, on your next request' : ''}.`
        }
        confirmLabel={roleChange ? `Make ${roleChange.role}` : 'Change role'}
        cancelLabel={roleChange ? `Keep ${roleChange.user.role}` : 'Cancel'}
        onConfirm={() => (roleChange ? change(roleChange.user, { role: roleChange.role }, `${roleChange.user.email} is now ${roleChange.role}`) : undefined)}
      />
      <ConfirmDialog
        open={!!deleteFor}
        onOpenChange={(o) => (!o ? setDeleteFor(null) : undefined)}
        title={`Delete ${deleteFor?.email ?? ''}?`}
        description="Their sessions and API tokens stop working at once. What they changed keeps their name in versions and history. This cannot be undone."
        confirmLabel="Delete user"
        cancelLabel="Keep user"
        onConfirm={async () => {
          if (!deleteFor) return;
          const r = await remove(deleteFor.id);
          if (r.ok) {
            toast({ kind: 'success', title: `${deleteFor.email} deleted` });
            router.refresh();
          } else toast({ kind: 'error', title: 'Not deleted', description: r.error });
          setDeleteFor(null);
        }}
      />
      <Card className="max-w-xl">
        <CardHeader title="New user" />
        <CardBody>
          <form onSubmit={submit} className="space-y-3" noValidate>
            <Field id="new-email" label="Email" error={fields.email}>
              <Input {...controlProps('new-email', fields.email)} type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} autoComplete="off" />
            </Field>
            <Field id="new-name" label="Name (optional)" error={fields.name}>
              <Input {...controlProps('new-name', fields.name)} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
            </Field>
            <Field id="new-password" label="Initial password" error={fields.password} hint="At least 8 characters; share it privately.">
              <Input {...controlProps('new-password', fields.password)} type="password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} autoComplete="new-password" />
            </Field>
            <Field id="new-role" label="Role" error={fields.role}>
              <NativeSelect {...controlProps('new-role', fields.role)} value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })}>
                <option value="operator">operator — jobs and runs</option>
                <option value="viewer">viewer — read only</option>
                <option value="admin">admin — everything</option>
              </NativeSelect>
            </Field>
            <Button type="submit" variant="primary" disabled={pending}>
              <UserPlus /> Create user
            </Button>
          </form>
        </CardBody>
      </Card>
    </div>
  );
}

/**
 * "Reset password": type a new one (the same rules as creating a user) or generate one, shown
 * once here with a copy button. The user's sessions end; resetting your own signs you out.
 */
function ResetPasswordDialog({ user, selfId, onClose, action }: { user: UserView | null; selfId: string; onClose: () => void; action: (id: string, input: unknown) => Promise<R<{ user: UserView; password?: string }>> }) {
  const [mode, setMode] = React.useState<'generate' | 'type'>('generate');
  const [password, setPassword] = React.useState('');
  const [err, setErr] = React.useState<string | undefined>();
  const [shown, setShown] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);
  const { toast } = useToast();
  React.useEffect(() => {
    setMode('generate');
    setPassword('');
    setErr(undefined);
    setShown(null);
  }, [user?.id]);
  if (!user) return null;
  const submit = async () => {
    setBusy(true);
    setErr(undefined);
    try {
      const r = await action(user.id, mode === 'type' ? { password } : {});
      if (!r.ok) {
        if (r.fields?.password) setErr(r.fields.password);
        else toast({ kind: 'error', title: 'Password not reset', description: r.error });
        return;
      }
      if (user.id === selfId) window.location.assign('/login');
      else if (r.data.password) setShown(r.data.password);
      else {
        toast({ kind: 'success', title: `Password of ${user.email} reset`, description: 'Their sessions have ended.' });
        onClose();
      }
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      onOpenChange={(o) => (!o ? onClose() : undefined)}
      title={`Reset password of ${user.email}`}
      description={user.id === selfId ? 'Your sessions end too: you sign in again with the new password.' : 'Their sessions end at once; their API tokens keep working.'}
      footer={
        shown ? (
          <Button variant="primary" onClick={onClose}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={onClose}>Close</Button>
            <Button variant="primary" disabled={busy} onClick={submit}>
              <KeyRound /> Reset password
            </Button>
          </>
        )
      }
    >
      {shown ? (
        <div className="space-y-2" data-testid="generated-password">
          <p className="text-[13px] text-zinc-700">The new password, shown only this once; share it privately:</p>
          <div className="flex items-center gap-2">
            <code className="rounded bg-zinc-100 px-2 py-1 font-mono text-sm text-zinc-900" data-testid="generated-password-value">
              {shown}
            </code>
            <Button size="sm" onClick={() => void navigator.clipboard?.writeText(shown).then(() => toast({ kind: 'success', title: 'Copied' }))}>
              Copy
            </Button>
          </div>
        </div>
      ) : (
        <div className="flex flex-col gap-3 text-[13px]">
          <label className="flex items-center gap-2">
            <input type="radio" name="reset-mode" checked={mode === 'generate'} onChange={() => setMode('generate')} /> Generate a password (shown once)
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" name="reset-mode" checked={mode === 'type'} onChange={() => setMode('type')} /> Set a password
          </label>
          {mode === 'type' ? (
            <Field id="reset-password" label="New password" error={err} hint="At least 8 characters, at most 72 bytes.">
              <Input {...controlProps('reset-password', err)} type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" />
            </Field>
          ) : null}
        </div>
      )}
    </Dialog>
  );
}
