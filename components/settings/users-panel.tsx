'use client';

import * as React from 'react';
import { useRouter } from 'next/navigation';
import { UserPlus } from 'lucide-react';
import type { UserView } from '@/lib/auth/users';
import { Button } from '../ui/button';
import { Card, CardBody, CardHeader } from '../ui/card';
import { DataTable } from '../ui/data-table';
import { Field, controlProps } from '../ui/field';
import { Input, NativeSelect } from '../ui/input';
import { useToast } from '../ui/toast';
import { StatusBadge } from '../status-badge';
import { RelativeTime } from '../time';

type R<T> = { ok: true; data: T } | { ok: false; error: string; fields?: Record<string, string> };
type Role = 'admin' | 'operator' | 'viewer';

/** Users table (role select, Disable/Enable) plus the create-user form with per-field errors. */
export function UsersPanel({ users, selfId, create, update }: { users: UserView[]; selfId: string; create: (input: unknown) => Promise<R<UserView>>; update: (id: string, input: unknown) => Promise<R<UserView>> }) {
  const router = useRouter();
  const { toast } = useToast();
  const [form, setForm] = React.useState({ email: '', name: '', password: '', role: 'operator' as Role });
  const [fields, setFields] = React.useState<Record<string, string>>({});
  const [pending, startTransition] = React.useTransition();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    startTransition(async () => {
      const r = await create({ ...form, name: form.name || undefined });
      if (r.ok) {
        toast({ kind: 'success', title: `User ${r.data.email} created` });
        setForm({ email: '', name: '', password: '', role: 'operator' });
        setFields({});
        router.refresh();
      } else {
        setFields(r.fields ?? {});
        if (!r.fields) toast({ kind: 'error', title: 'User not created', description: r.error });
      }
    });
  };
  const change = async (u: UserView, input: { role?: Role; disabled?: boolean }, done: string) => {
    const r = await update(u.id, input);
    if (r.ok) {
      toast({ kind: 'success', title: done });
      router.refresh();
    } else toast({ kind: 'error', title: 'Update failed', description: r.error });
  };

  return (
    <div className="grid grid-cols-1 gap-4 xl:grid-cols-3">
      <Card className="overflow-hidden xl:col-span-2">
        <DataTable
          testId="users-table"
          scroll={false}
          rows={users}
          rowKey={(u) => u.id}
          columns={[
            {
              key: 'email',
              header: 'Email',
              className: 'text-[13px]',
              cell: (u) => (
                <>
                  {u.email}
                  {u.id === selfId ? <span className="ml-1.5 text-[11px] text-zinc-400">you</span> : null}
                </>
              ),
            },
            { key: 'name', header: 'Name', className: 'text-zinc-600', cell: (u) => u.name || '—' },
            {
              key: 'role',
              header: 'Role',
              cell: (u) => (
                <NativeSelect aria-label={`Role of ${u.email}`} className="h-7 w-28 text-xs" value={u.role} onChange={(e) => change(u, { role: e.target.value as Role }, `${u.email} is now ${e.target.value}`)}>
                  <option value="admin">admin</option>
                  <option value="operator">operator</option>
                  <option value="viewer">viewer</option>
                </NativeSelect>
              ),
            },
            { key: 'status', header: 'Status', cell: (u) => <StatusBadge status={u.disabled ? 'disabled' : 'active'} /> },
            { key: 'lastLogin', header: 'Last login', className: 'text-xs', cell: (u) => <RelativeTime value={u.lastLoginAt} /> },
            {
              key: 'actions',
              header: null,
              className: 'text-right',
              cell: (u) =>
                u.id !== selfId ? (
                  <Button size="sm" variant={u.disabled ? 'secondary' : 'danger-outline'} onClick={() => change(u, { disabled: !u.disabled }, u.disabled ? `${u.email} enabled` : `${u.email} disabled`)}>
                    {u.disabled ? 'Enable' : 'Disable'}
                  </Button>
                ) : null,
            },
          ]}
        />
      </Card>
      <Card>
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
