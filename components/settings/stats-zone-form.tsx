'use client';

import { DisabledReason } from '../ui/disabled-reason';
import * as React from 'react';
import { useRouter } from 'next/navigation';
import { Button } from '../ui/button';
import { Card, CardBody, CardHeader } from '../ui/card';
import { Field } from '../ui/field';
import { useToast } from '../ui/toast';
import { TimezonePicker } from '../jobs/timezone-picker';

type R<T> = { ok: true; data: T } | { ok: false; error: string; fields?: Record<string, string> };
type Saved = { timezone: string; previous: string; rebuilt: { from: string; to: string; computedRows: number } | null };

/**
 * The stats day zone (admin): one database setting every process books with.
 * Saving a different zone rebuilds the daily table from the detail rows still kept.
 */
export function StatsZoneForm({ current, zones, save }: { current: string; zones: string[]; save: (input: unknown) => Promise<R<Saved>> }) {
  const router = useRouter();
  const { toast } = useToast();
  const [tz, setTz] = React.useState(current);
  const [error, setError] = React.useState<string | null>(null);
  const [pending, startTransition] = React.useTransition();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    startTransition(async () => {
      const r = await save({ timezone: tz });
      if (!r.ok) {
        setError(r.fields?.timezone ?? r.error);
        return;
      }
      setError(null);
      const rebuilt = r.data.rebuilt ? `; rebuilt ${r.data.rebuilt.from}..${r.data.rebuilt.to} (${r.data.rebuilt.computedRows} rows)` : '';
      toast({ kind: 'success', title: r.data.previous === r.data.timezone ? 'Unchanged' : `Stats days are now cut in ${r.data.timezone}${rebuilt}` });
      router.refresh();
    });
  };

  return (
    <Card>
      <CardHeader title="Stats day zone" description={`Current: ${current}. Changing it rebuilds the daily statistics from the run history still kept (older days keep their cut).`} />
      <CardBody>
        <form onSubmit={submit} className="flex max-w-md flex-col gap-3" data-testid="stats-zone-form">
          <Field id="stats-timezone" label="Time zone" error={error ?? undefined}>
            <TimezonePicker id="stats-timezone" value={tz} onChange={setTz} zones={zones} invalid={!!error} describedBy={error ? 'stats-timezone-error' : undefined} />
          </Field>
          <div>
            <DisabledReason reason={pending ? 'Rebuilding…' : tz.trim() === '' ? 'Choose a time zone' : tz === current && 'This is already the stats zone'}>
              <Button type="submit" variant="primary">
                {pending ? 'Rebuilding…' : 'Save and rebuild'}
              </Button>
            </DisabledReason>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
