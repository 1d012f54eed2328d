'use client';

import * as React from 'react';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { TabsContent, TabsList, TabsRoot, TabsTrigger } from '../ui/tabs';
import { confirmLeave } from '../unsaved-changes';

import { JOB_TABS, type JobTab } from './job-tab-names';
const LABEL: Record<JobTab, string> = { overview: 'Overview', graph: 'Graph', runs: 'Runs', grid: 'Grid', calendar: 'Calendar', versions: 'Versions' };

/**
 * The job page's tabs (Radix Tabs) kept in `?tab=` so a tab is linkable and survives
 * reloads. Panels are rendered on the server and passed in.
 */
export function JobTabs({ initial, panels }: { initial: JobTab; panels: Record<JobTab, React.ReactNode> }) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const [tab, setTab] = React.useState<JobTab>(initial);
  React.useEffect(() => setTab(initial), [initial]);
  return (
    <TabsRoot
      value={tab}
      // Manual: a press on a tab focuses it and then activates it, and with automatic activation the focus
      // activated it as well, so the leave guard below asked twice for one press (and again after Cancel).
      activationMode="manual"
      onValueChange={(v) => {
        // A tab switch unmounts the panel it leaves (the Graph tab's editor): ask first when it holds unsaved work.
        void confirmLeave().then((ok) => {
          if (!ok) return;
          setTab(v as JobTab);
          const qs = new URLSearchParams(params.toString());
          if (v === 'overview') qs.delete('tab');
          else qs.set('tab', v);
          router.replace(`${pathname}${qs.size ? `?${qs}` : ''}`, { scroll: false });
        });
      }}
    >
      <TabsList aria-label="Job sections">
        {JOB_TABS.map((t) => (
          <TabsTrigger key={t} value={t}>
            {LABEL[t]}
          </TabsTrigger>
        ))}
      </TabsList>
      {JOB_TABS.map((t) => (
        <TabsContent key={t} value={t} className="pt-4 focus:outline-none">
          {panels[t]}
        </TabsContent>
      ))}
    </TabsRoot>
  );
}
