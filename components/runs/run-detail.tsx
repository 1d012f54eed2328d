'use client';

import * as React from 'react';
import type { RunView } from '@/lib/runs/run-view';
import type { EdgeDraft, StepDraft } from '../dag/model';
import { RunGraphCard, RunHeader, RunSummary, TasksTable } from './run-sections';
import { RunGantt } from './run-gantt';
import { TaskSection } from './task-section';
import { useRunDetail, type RunActions } from './use-run-detail';
import { dagListOrder } from '@/lib/dag';

/** Step key -> position in the graph's list order (lib/dag dagListOrder). */
function dagRank(graph: { steps: StepDraft[]; edges: EdgeDraft[] }): Map<string, number> {
  const order = dagListOrder(graph.steps.map((s) => s.key), graph.edges);
  return new Map(order.map((k, i) => [k, i]));
}

export { JsonBlock } from './task-section';

export type RunDetailProps = RunActions & {
  /** The run as the server rendered it (lib/runs getRun). */
  initial: RunView;
  /** Steps and edges of the job version the run was created from (drawn by RunGraph, coloured by live task status). */
  graph: { steps: StepDraft[]; edges: EdgeDraft[] };
  /** Step key of the task to open the page on (`/runs/:id?task=`, e.g. from the job's Grid tab): selected in the graph, its section open and scrolled to. */
  focusTask?: string | null;
};

/**
 * Run page body. Polls GET /api/v1/runs/:id every second while the run is pending or
 * running and stops once it is final. Shows status (`data-testid="run-status"`),
 * timings with lateness, params, error, retry chain, the tasks table
 * (`task-status-<stepKey>`), each task's log timeline (`task-log-row`) and output.
 */
export function RunDetail({ initial, graph, cancel, retry, retryTask, focusTask = null }: RunDetailProps) {
  const live = useRunDetail(initial, { cancel, retry, retryTask });
  const focus = focusTask && initial.tasks.some((t) => t.stepKey === focusTask) ? focusTask : null;
  const [selected, setSelected] = React.useState<string | null>(focus);
  React.useEffect(() => {
    if (focus) document.getElementById(`task-${focus}`)?.scrollIntoView({ block: 'start' });
  }, [focus]);
  // Tasks in the order of the graph (parents before children), as the operator reads the run.
  const order = React.useMemo(() => dagRank(graph), [graph]);
  const rd = React.useMemo(() => ({ ...live, run: { ...live.run, tasks: [...live.run.tasks].sort((a, b) => (order.get(a.stepKey) ?? Infinity) - (order.get(b.stepKey) ?? Infinity) || a.stepKey.localeCompare(b.stepKey)) } }), [live, order]);
  const { run } = rd;
  return (
    <>
      <RunHeader rd={rd} />
      <RunSummary rd={rd} />
      <RunGraphCard
        rd={rd}
        graph={graph}
        selected={selected}
        onSelect={(k) => {
          setSelected(k);
          document.getElementById(`task-${k}`)?.scrollIntoView({ behavior: 'smooth', block: 'start' });
        }}
      />
      <TasksTable rd={rd} />
      <RunGantt run={run} />
      <div className="mt-4 space-y-3">
        {run.tasks.map((t) => (
          <TaskSection key={t.id} task={t} defaultOpen={run.tasks.length <= 6 || t.stepKey === focus} focused={t.stepKey === focus} />
        ))}
      </div>
    </>
  );
}
