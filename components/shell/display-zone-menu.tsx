'use client';
// Top-bar control of the display time zone: shows the zone times are written in and lets the user pick another
// one, or go back to the browser's zone. The choice is stored per user (users.display_time_zone).
import * as React from 'react';
import { Globe } from 'lucide-react';
import { listTimeZones } from '@/lib/schedule/timezone';
import { zoneLabel } from '@/lib/time/format';
import { useDisplayZoneSettings } from '../display-zone';
import { TimezonePicker } from '../jobs/timezone-picker';
import { Button } from '../ui/button';
import { Dialog } from '../ui/dialog';

/** The button (test id `display-zone`) and its dialog. */
export function DisplayZoneMenu() {
  const { zone, preference, browserZone, choose } = useDisplayZoneSettings();
  const [open, setOpen] = React.useState(false);
  const [mode, setMode] = React.useState<'browser' | 'zone'>(preference ? 'zone' : 'browser');
  const [value, setValue] = React.useState(preference ?? zone);
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);
  const zones = React.useMemo(() => (open ? listTimeZones() : []), [open]);

  const onOpenChange = (o: boolean) => {
    setOpen(o);
    if (o) {
      setMode(preference ? 'zone' : 'browser');
      setValue(preference ?? zone);
      setError(null);
    }
  };
  const save = async () => {
    setBusy(true);
    const message = await choose(mode === 'browser' ? null : value.trim());
    setBusy(false);
    if (message) setError(message);
    else setOpen(false);
  };

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      trigger={
        <button type="button" data-testid="display-zone" title="Time zone the console writes times in" className="inline-flex items-center gap-1.5 rounded-md px-2 py-1 text-xs text-zinc-600 hover:bg-zinc-100">
          <Globe className="size-3.5" />
          <span className="max-w-[9rem] truncate sm:max-w-none">
            {zone} <span className="hidden text-zinc-500 sm:inline">({zoneLabel(new Date(), zone)})</span>
          </span>
        </button>
      }
      title="Display time zone"
      description="Every time on the console is written in this zone, with the zone next to it. Jobs keep their own schedule zones."
      footer={
        <>
          <Button onClick={() => setOpen(false)}>Cancel</Button>
          <Button variant="primary" disabled={busy} onClick={() => void save()} data-testid="display-zone-save">
            Save
          </Button>
        </>
      }
    >
      <div className="space-y-3 text-[13px]">
        <label className="flex items-center gap-2">
          <input type="radio" name="display-zone-mode" checked={mode === 'browser'} onChange={() => setMode('browser')} className="accent-indigo-600" />
          My browser&apos;s zone{browserZone ? ` (${browserZone})` : ''}
        </label>
        <label className="flex items-center gap-2">
          <input type="radio" name="display-zone-mode" checked={mode === 'zone'} onChange={() => setMode('zone')} className="accent-indigo-600" />
          This zone:
        </label>
        <div className="pl-6">
          <TimezonePicker id="display-zone-picker" value={value} onChange={(z) => { setValue(z); setMode('zone'); }} zones={zones} invalid={!!error} describedBy={error ? 'display-zone-error' : undefined} />
          {error ? (
            <p id="display-zone-error" role="alert" className="mt-1 text-xs text-red-600">
              {error}
            </p>
          ) : null}
        </div>
      </div>
    </Dialog>
  );
}
