import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { isDomainError } from '@/lib/errors';
import { getRun } from '@/lib/runs';
import { getJobVersion } from '@/lib/jobs/list-versions';
import { RunDetail } from '@/components/runs/run-detail';
import { cancelRunAction, retryRunAction, retryTaskAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }>; searchParams?: Promise<{ task?: string | string[] }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Run ${id.slice(0, 8)}` };
}

/** /runs/[id]: run status, timings, tasks, task logs and output — live while the run is active. `?task=<step key>` opens it on that task. */
export default consolePage(async function RunPage({ params, searchParams }: Props) {
  const { id } = await params;
  const task = (await searchParams)?.task;
  const actor = await requireActor('viewer');
  let run;
  try {
    run = await getRun(getDb(), id, actor);
  } catch (e) {
    if (isDomainError(e) && e.code === 'not_found') notFound();
    throw e;
  }
  // The graph is the job version the run was created from; if that job was purged, rebuild it from the tasks.
  const graph = await getJobVersion(getDb(), run.jobId, run.jobVersion, actor)
    .then((v) => ({ steps: v.snapshot.steps, edges: v.snapshot.edges }))
    .catch(() => ({
      steps: run.tasks.map((t) => ({ key: t.stepKey, handler: t.handler })),
      edges: run.tasks.flatMap((t) => t.parents.map((p) => ({ from: p.step, to: t.stepKey, type: p.type }))),
    }));
  return <RunDetail initial={run} graph={graph} focusTask={typeof task === 'string' ? task : null} cancel={cancelRunAction} retry={retryRunAction} retryTask={retryTaskAction} />;
});
