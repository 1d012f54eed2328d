'use client';

import { DisabledReason } from '../ui/disabled-reason';
import * as React from 'react';
import { Link } from '@/components/ui/link';
import { FileUp, Eye, Upload } from 'lucide-react';
import type { ImportCrontabResult } from '@/lib/jobs/import-crontab';
import { Button } from '../ui/button';
import { Card, CardBody, CardHeader } from '../ui/card';
import { DataTable } from '../ui/data-table';
import { Field, controlProps } from '../ui/field';
import { Input, Textarea } from '../ui/input';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { TimezonePicker } from './timezone-picker';
import { decodeUtf8 } from '@/lib/api/json-guard';
import { useUnsavedChangesGuard } from '../unsaved-changes';

type Result<T> = { ok: true; data: T } | { ok: false; error: string; fields?: Record<string, string>; code?: string };
type Submit = (input: unknown) => Promise<Result<ImportCrontabResult>>;
type Draft = { text: string; timezone: string; system: boolean; keyPrefix: string; source?: string };

const sameDraft = (a: Draft, b: Draft) => a.text === b.text && a.timezone === b.timezone && a.system === b.system && a.keyPrefix === b.keyPrefix;

/**
 * The crontab upload: a file input (or paste), time zone, system format,
 * key prefix; "Preview" runs the import as a dry run (jobs that would be created and
 * the lines that cannot be converted, with reasons); "Import" is enabled once the
 * preview matches the current input, and creates the paused jobs in one transaction.
 */
export function CrontabImport({ timeZones, submit }: { timeZones: string[]; submit: Submit }) {
  const { toast } = useToast();
  const [draft, setDraft] = React.useState<Draft>({ text: '', timezone: 'UTC', system: false, keyPrefix: 'crontab' });
  const [pending, setPending] = React.useState<'preview' | 'import' | null>(null);
  const [preview, setPreview] = React.useState<{ draft: Draft; result: ImportCrontabResult } | null>(null);
  const [imported, setImported] = React.useState<ImportCrontabResult | null>(null);
  const [error, setError] = React.useState<{ message: string; fields: Record<string, string> } | null>(null);
  const fields = error?.fields ?? {};
  const previewCurrent = !!preview && sameDraft(preview.draft, draft);
  // A pasted crontab not imported yet is work, as the job form's input is: links, Back and reload ask first.
  useUnsavedChangesGuard(draft.text.trim() !== '' && !imported, 'The crontab has not been imported. Leave and discard it?');

  const change = (patch: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setImported(null);
  };

  const onFile = async (e: React.ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    // file.text() would put U+FFFD in place of bytes that are not UTF-8 (a Latin-1 crontab) and import the commands changed
    const text = decodeUtf8(new Uint8Array(await file.arrayBuffer()));
    if (text === null) {
      const message = `${file.name} is not valid UTF-8: save it as UTF-8 and choose it again`;
      setError({ message, fields: { text: message } });
      return;
    }
    setError(null);
    change({ text, source: file.name });
  };

  const run = async (dryRun: boolean) => {
    setPending(dryRun ? 'preview' : 'import');
    setError(null);
    try {
      const input = { text: draft.text, timezone: draft.timezone, system: draft.system, keyPrefix: draft.keyPrefix || undefined, dryRun, source: draft.source };
      const r = await submit(input);
      if (!r.ok) {
        setError({ message: r.error, fields: r.fields ?? {} });
        if (r.code !== 'validation') toast({ kind: 'error', title: dryRun ? 'Preview failed' : 'Import failed', description: r.error });
        return;
      }
      if (dryRun) {
        setImported(null);
        setPreview({ draft, result: r.data });
      } else {
        setImported(r.data);
        setPreview(null);
        toast({ kind: 'success', title: `${r.data.created.length} paused job(s) created` });
      }
    } finally {
      setPending(null);
    }
  };

  return (
    <div className="flex flex-col gap-4">
      <Card>
        <CardHeader title="Crontab" description="Environment lines, 5-field entries, macros (@daily…) and CRON_TZ are understood. Each entry becomes a paused one-step shell job." />
        <CardBody className="flex flex-col gap-3">
          <Field id="crontab-file" label="Crontab file" hint="Or paste the text below.">
            <input id="crontab-file" type="file" accept=".txt,.cron,text/plain,*" onChange={onFile} className="text-[13px] file:mr-3 file:rounded-md file:border file:border-zinc-200 file:bg-white file:px-2.5 file:py-1 file:text-[13px]" />
          </Field>
          <Field id="text" label="Crontab text" error={fields.text}>
            <Textarea
              {...controlProps('text', fields.text)}
              mono
              rows={12}
              spellCheck={false}
              placeholder={'SHELL=/bin/bash\nMAILTO=ops@example.com\n30 2 * * * /usr/local/bin/backup.sh\n@hourly date'}
              value={draft.text}
              onChange={(e) => change({ text: e.target.value })}
            />
          </Field>
          <div className="grid gap-3 sm:grid-cols-3">
            <Field id="timezone" label="Time zone" error={fields.timezone} hint="The zone of the cron daemon that ran this file. CRON_TZ= lines override it; TZ= only reaches the commands' environment, as in cron.">
              <TimezonePicker id="timezone" value={draft.timezone} onChange={(tz) => change({ timezone: tz })} zones={timeZones} invalid={!!fields.timezone} describedBy={fields.timezone ? 'timezone-error' : undefined} />
            </Field>
            <Field id="keyPrefix" label="Key prefix" error={fields.keyPrefix} hint="Job keys become prefix.l<line>.<command>.">
              <Input {...controlProps('keyPrefix', fields.keyPrefix)} value={draft.keyPrefix} onChange={(e) => change({ keyPrefix: e.target.value })} />
            </Field>
            <div className="flex items-center gap-2 pt-5">
              <input id="system" type="checkbox" checked={draft.system} onChange={(e) => change({ system: e.target.checked })} className="size-4 rounded border-zinc-300" />
              <label htmlFor="system" className="text-[13px] text-zinc-700">
                System format (user column)
              </label>
            </div>
          </div>
          {error && !Object.keys(error.fields).length ? (
            <p role="alert" className="text-xs text-red-600" data-testid="import-error">
              {error.message}
            </p>
          ) : null}
          <div className="flex items-center gap-2">
            <RoleGate>
              <DisabledReason reason={pending !== null ? 'Working…' : !draft.text.trim() && 'Paste or upload a crontab first'}>
                <Button onClick={() => run(true)}>
                  <Eye /> {pending === 'preview' ? 'Previewing…' : 'Preview'}
                </Button>
              </DisabledReason>
            </RoleGate>
            <RoleGate>
              <DisabledReason reason={pending !== null ? 'Working…' : !previewCurrent ? 'Preview the current text first' : preview!.result.created.length === 0 && 'No line converts to a job'}>
                <Button variant="primary" onClick={() => run(false)}>
                  <Upload /> {pending === 'import' ? 'Importing…' : 'Import'}
                </Button>
              </DisabledReason>
            </RoleGate>
            {!previewCurrent && draft.text.trim() ? <span className="text-xs text-zinc-500">Preview first; Import creates what the preview shows.</span> : null}
          </div>
        </CardBody>
      </Card>

      {imported ? (
        <ResultCard testId="import-result" title={`Imported ${imported.created.length} paused job(s)`} result={imported} linked />
      ) : previewCurrent ? (
        <ResultCard testId="import-preview" title={`Preview: ${preview!.result.created.length} job(s) would be created, ${preview!.result.skipped.length} line(s) cannot be converted`} result={preview!.result} />
      ) : null}
    </div>
  );
}

function ResultCard({ title, result, linked, testId }: { title: string; result: ImportCrontabResult; linked?: boolean; testId: string }) {
  return (
    <Card data-testid={testId}>
      <CardHeader
        title={title}
        description={linked ? 'The jobs are paused: review each one, then resume it. Shell jobs need workers started with TICKFLOW_ALLOW_SHELL=1.' : 'Nothing has been written yet.'}
        actions={
          linked ? (
            <Button asChild size="sm">
              <Link href="/jobs?status=paused">
                <FileUp /> Paused jobs
              </Link>
            </Button>
          ) : null
        }
      />
      {result.created.length ? (
        <DataTable
          testId="import-jobs"
          rows={result.created.map((job, i) => ({ job, zone: result.zones?.[i], warning: result.warnings?.find((w) => w.key === job.key) }))}
          rowKey={({ job }) => job.key}
          rowProps={({ job }) => ({ 'data-testid': 'import-job-row', 'data-job-key': job.key })}
          columns={[
            {
              key: 'key',
              header: 'Key',
              className: 'font-mono text-xs',
              cell: ({ job }) =>
                // a preview's jobs have no id (nothing was stored): only an import's link to their pages
                linked && 'id' in job ? (
                  <Link href={`/jobs/${job.id}`} className="text-indigo-600 hover:underline">
                    {job.key}
                  </Link>
                ) : (
                  job.key
                ),
            },
            {
              key: 'schedule',
              header: 'Schedule',
              className: 'font-mono text-xs',
              cell: ({ job, zone }) => {
                const s = job.schedule as { cron?: string; timezone?: string };
                return (
                  <>
                    {s.cron} <span className="text-zinc-500">{s.timezone}</span>
                    {zone ? (
                      <div className="font-sans text-[11px] text-zinc-500" data-testid="import-zone-reason">
                        {zone.reason}
                      </div>
                    ) : null}
                  </>
                );
              },
            },
            {
              key: 'command',
              header: 'Command',
              className: 'font-mono text-xs text-zinc-700',
              cell: ({ job, warning }) => {
                const cmd = (job.steps[0]?.config as { command?: string[] } | undefined)?.command;
                return (
                  <>
                    {cmd ? cmd[cmd.length - 1] : job.name}
                    {warning ? (
                      <div className="font-sans text-[11px] text-amber-700" data-testid="import-warning">
                        {warning.message}
                      </div>
                    ) : null}
                  </>
                );
              },
            },
          ]}
        />
      ) : (
        <CardBody className="text-[13px] text-zinc-500">No job {linked ? 'was' : 'would be'} created.</CardBody>
      )}
      {result.skipped.length ? (
        <div className="border-t border-zinc-200">
          <p className="px-4 pt-2.5 text-xs font-semibold text-zinc-700">Lines that cannot be converted</p>
          <ul className="px-4 py-2 text-[13px]">
            {result.skipped.map((s) => (
              <li key={`${s.line}`} className="py-1" data-testid="import-skipped-row" data-line={s.line}>
                <span className="font-medium text-zinc-800">Line {s.line}:</span> <span className="text-red-700">{s.reason}</span>
                <pre className="mt-0.5 overflow-x-auto rounded bg-zinc-50 px-2 py-1 font-mono text-xs text-zinc-600">{s.text}</pre>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </Card>
  );
}
