'use client';

import * as React from 'react';
import { useRouter } from 'next/navigation';
import { useQueryClient } from '@tanstack/react-query';
import { BellRing } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Field, controlProps } from '@/components/ui/field';
import { Input, NativeSelect } from '@/components/ui/input';
import { RoleGate } from '@/components/role';
import { useToast } from '@/components/ui/toast';
import type { sendTestAlarmAction } from './actions';
import { testAlarmFailureNotice } from '@/components/alarms/test-alarm-failure';

/** "Send test alarm" button + dialog (operator+): pick a channel and target, queue one alarm. */
export function SendTestAlarmButton({ action }: { action: typeof sendTestAlarmAction }) {
  const [open, setOpen] = React.useState(false);
  const [type, setType] = React.useState<'webhook' | 'email' | 'log'>('webhook');
  const [target, setTarget] = React.useState('');
  const [fieldError, setFieldError] = React.useState<string | undefined>();
  const [busy, setBusy] = React.useState(false);
  const { toast } = useToast();
  const router = useRouter();
  const qc = useQueryClient();
  const send = async () => {
    setBusy(true);
    setFieldError(undefined);
    try {
      const r = await action({ channel: { type, target: type === 'log' ? '' : target } });
      if (r.ok) {
        toast({ kind: 'success', title: 'Test alarm queued', description: 'A worker delivers it within a few seconds; watch its status below.' });
        setOpen(false);
        void qc.invalidateQueries({ queryKey: ['alarms'] });
        router.refresh();
      } else {
        const notice = testAlarmFailureNotice(r);
        setFieldError(notice.fieldError);
        if (notice.toast) toast({ kind: 'error', title: 'Test alarm not sent', description: notice.toast });
      }
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <RoleGate>
        <Button variant="primary" onClick={() => setOpen(true)}>
          <BellRing /> Send test alarm
        </Button>
      </RoleGate>
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title="Send test alarm"
        description="Queues one alarm on the channel below so you can check the receiver. Webhooks are signed with X-Tickflow-Signature."
        footer={
          <>
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button variant="primary" disabled={busy} onClick={send}>
              <BellRing /> Send
            </Button>
          </>
        }
      >
        <div className="flex flex-col gap-3">
          <Field id="test-alarm-channel" label="Channel">
            <NativeSelect id="test-alarm-channel" value={type} onChange={(e) => setType(e.target.value as typeof type)}>
              <option value="webhook">Webhook (JSON POST)</option>
              <option value="email">Email (SMTP)</option>
              <option value="log">Log (worker log line)</option>
            </NativeSelect>
          </Field>
          {type !== 'log' ? (
            <Field id="test-alarm-target" label={type === 'webhook' ? 'Webhook URL' : 'Email address'} error={fieldError}>
              <Input {...controlProps('test-alarm-target', fieldError)} value={target} placeholder={type === 'webhook' ? 'https://hooks.example.com/tickflow' : 'ops@example.com'} onChange={(e) => setTarget(e.target.value)} />
            </Field>
          ) : null}
        </div>
      </Dialog>
    </>
  );
}
