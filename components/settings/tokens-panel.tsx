'use client';

import * as React from 'react';
import { useRouter } from 'next/navigation';
import { Check, Copy, KeyRound } from 'lucide-react';
import type { ApiTokenView } from '@/lib/auth/tokens';
import { Button } from '../ui/button';
import { Card, CardBody, CardHeader } from '../ui/card';
import { Truncate } from '../ui/truncate';
import { DataTable, STACK_FIRST_LINE } from '../ui/data-table';
import { ConfirmDialog } from '../ui/dialog';
import { EmptyState } from '../ui/empty-state';
import { Field, controlProps } from '../ui/field';
import { Input, NativeSelect } from '../ui/input';
import { useToast } from '../ui/toast';
import { StatusBadge, Tag } from '../status-badge';
import { RelativeTime } from '../time';
import { zoneLabel, zonedLocalToUtc, type RepeatedOccurrence } from '@/lib/time/format';
import { WallTimeChoice } from '../ui/wall-time-choice';
import { unreadableFields } from '../ui/unreadable-input';
import { useDisplayZone } from '../display-zone';

type R<T> = { ok: true; data: T } | { ok: false; error: string; fields?: Record<string, string> };
type Scope = 'read' | 'operate' | 'admin';

/** API tokens: list (prefix, owner, scope, last used, expiry, revoked), create (raw token shown once, copyable; owned by the signed-in user), revoke. */
export function TokensPanel({ tokens, create, revoke }: { tokens: ApiTokenView[]; create: (input: unknown) => Promise<R<{ token: string; view: ApiTokenView }>>; revoke: (id: string) => Promise<R<ApiTokenView>> }) {
  const router = useRouter();
  const { toast } = useToast();
  const [name, setName] = React.useState('');
  const [scope, setScope] = React.useState<Scope>('operate');
  const [expiresAt, setExpiresAt] = React.useState('');
  const [expiresRepeated, setExpiresRepeated] = React.useState<RepeatedOccurrence>('first');
  const zone = useDisplayZone();
  const expiresInstant = expiresAt ? zonedLocalToUtc(expiresAt, zone, { repeated: expiresRepeated }) : null;
  const [fields, setFields] = React.useState<Record<string, string>>({});
  const [created, setCreated] = React.useState<{ token: string; name: string } | null>(null);
  const [copied, setCopied] = React.useState(false);
  const [pending, startTransition] = React.useTransition();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    // an expiry with a part left empty reads as none: a token that never expires
    const unreadable = unreadableFields({ expiresAt: 'token-expires' });
    if (Object.keys(unreadable).length) {
      setFields(unreadable);
      return;
    }
    const sentName = name;
    const sentExpiresAt = expiresAt;
    startTransition(async () => {
      const r = await create({ name, scope, ...(expiresAt ? { expiresAt: expiresInstant?.toISOString() ?? expiresAt } : {}) });
      if (r.ok) {
        setCreated({ token: r.data.token, name: r.data.view.name });
        setCopied(false);
        // emptied only if untouched since it was sent: what was typed while the request ran is kept
        setName((now) => (now === sentName ? '' : now));
        setExpiresAt((now) => (now === sentExpiresAt ? '' : now));
        setExpiresRepeated('first');
        setFields({});
        router.refresh();
      } else {
        setFields(r.fields ?? {});
        if (!r.fields) toast({ kind: 'error', title: 'Token not created', description: r.error });
      }
    });
  };

  return (
    // The New token form sits beside the table only where the table still has room for every column on one line
    // (2xl, 1536 px and up, as on the Users page); narrower, it goes below: at 1280 px, a third of the width for the
    // form squeezed the table until names and dates wrapped, the prefix was cut and Revoke touched the card's edge.
    <div className="grid grid-cols-1 items-start gap-4 2xl:grid-cols-[minmax(0,1fr)_22rem]">
      <div className="min-w-0 space-y-4">
        {created ? (
          <div className="rounded-lg border border-emerald-200 bg-emerald-50 p-4" role="status" data-testid="new-token">
            <p className="text-[13px] font-medium text-emerald-900">Token “{created.name}” created. Copy it now: it will not be shown again.</p>
            <div className="mt-2 flex items-center gap-2">
              <code className="min-w-0 flex-1 truncate rounded-md border border-emerald-200 bg-white px-2.5 py-1.5 font-mono text-xs" data-testid="new-token-value">
                {created.token}
              </code>
              <Button
                size="sm"
                onClick={async () => {
                  await navigator.clipboard.writeText(created.token).catch(() => undefined);
                  setCopied(true);
                }}
              >
                {copied ? <Check /> : <Copy />} {copied ? 'Copied' : 'Copy'}
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setCreated(null)}>
                Done
              </Button>
            </div>
          </div>
        ) : null}
        <Card className="overflow-hidden">
          {tokens.length === 0 ? (
            <EmptyState icon={<KeyRound />} title="No API tokens" description="Create one for scripts and CI. Every token acts for its owner. TICKFLOW_API_TOKEN from the environment is the bootstrap admin token." />
          ) : (
            <DataTable
              testId="tokens-table"
              // below 768 px a card per token: its name, status and Revoke first, then the rest after their labels (the
              // card's overflow-hidden would otherwise cut Revoke off)
              stack
              rows={tokens}
              rowKey={(t) => t.id}
              rowProps={() => ({ className: STACK_FIRST_LINE })}
              columns={[
                { key: 'name', header: 'Name', className: 'max-md:-order-4 max-md:min-w-0 max-md:flex-1 max-md:break-words', cell: (t) => <Truncate text={t.name} className="max-w-[16rem] max-md:max-w-none max-md:whitespace-normal" /> },
                { key: 'prefix', header: 'Prefix', className: 'font-mono text-xs md:whitespace-nowrap', cell: (t) => `${t.prefix}…` },
                { key: 'owner', header: 'Owner', label: 'owner', className: 'text-xs', cell: (t) => <Truncate text={t.owner} className="max-w-[16rem] max-md:max-w-none max-md:whitespace-normal max-md:break-all" /> },
                { key: 'scope', header: 'Scope', cell: (t) => <Tag>{t.scope}</Tag> },
                {
                  key: 'status',
                  header: 'Status',
                  className: 'max-md:-order-3',
                  cell: (t) => <StatusBadge status={t.revokedAt ? 'revoked' : t.expiresAt && new Date(t.expiresAt) < new Date() ? 'expired' : 'active'} />,
                },
                { key: 'lastUsed', header: 'Last used', headerClassName: 'whitespace-nowrap', label: 'last used', className: 'text-xs md:whitespace-nowrap', cell: (t) => <RelativeTime value={t.lastUsedAt} /> },
                { key: 'expires', header: 'Expires', label: 'expires', className: 'text-xs md:whitespace-nowrap', cell: (t) => (t.expiresAt ? <RelativeTime value={t.expiresAt} /> : 'never') },
                { key: 'created', header: 'Created', label: 'created', className: 'text-xs md:whitespace-nowrap', cell: (t) => <RelativeTime value={t.createdAt} /> },
                {
                  key: 'actions',
                  header: null,
                  className: 'text-right max-md:-order-2 max-md:empty:hidden',
                  cell: (t) =>
                    !t.revokedAt ? (
                      <ConfirmDialog
                        trigger={
                          <Button size="sm" variant="danger-outline">
                            Revoke
                          </Button>
                        }
                        title={`Revoke ${t.name}?`}
                        description="Requests with this token are refused from now on. This cannot be undone."
                        confirmLabel="Revoke"
                        onConfirm={async () => {
                          const r = await revoke(t.id);
                          if (r.ok) {
                            toast({ kind: 'success', title: `${t.name} revoked` });
                            router.refresh();
                          } else toast({ kind: 'error', title: 'Revoke failed', description: r.error });
                        }}
                      />
                    ) : null,
                },
              ]}
            />
          )}
        </Card>
      </div>
      <Card>
        <CardHeader title="New token" />
        <CardBody>
          <form onSubmit={submit} className="space-y-3" noValidate>
            <Field id="token-name" label="Token name" error={fields.name} hint="What uses it, e.g. ci-deploy">
              <Input {...controlProps('token-name', fields.name)} value={name} onChange={(e) => setName(e.target.value)} />
            </Field>
            <Field id="token-scope" label="Scope" error={fields.scope ?? fields.ownerId} hint="The token acts for you with at most this role, and stops working if you are disabled, deleted or lose the role.">
              <NativeSelect {...controlProps('token-scope', fields.scope)} value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
                <option value="operate">operate (operator)</option>
                <option value="read">read (viewer)</option>
                <option value="admin">admin</option>
              </NativeSelect>
            </Field>
            <div>
              <Field id="token-expires" label={`Expires (optional, ${zoneLabel(expiresInstant ?? new Date(), zone)})`} error={fields.expiresAt}>
                <Input {...controlProps('token-expires', fields.expiresAt)} type="datetime-local" value={expiresAt} onChange={(e) => setExpiresAt(e.target.value)} />
              </Field>
              <WallTimeChoice id="token-expires" local={expiresAt} zone={zone} value={expiresRepeated} onChange={setExpiresRepeated} />
            </div>
            <Button type="submit" variant="primary" disabled={pending}>
              <KeyRound /> Create token
            </Button>
          </form>
        </CardBody>
      </Card>
    </div>
  );
}
