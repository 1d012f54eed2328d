import type { Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { isUuid } from '../api/ids.ts';
import { escapeLike } from '../api/like.ts';

/** One entry of a job picker (the runs, alarms and stats filters): the job's id and what the picker shows. */
export interface JobOption {
  value: string;
  label: string;
}

/** How many jobs a picker lists before the operator types: the first by key; typing searches them all (listJobOptions `q`). */
export const JOB_OPTIONS_LIMIT = 200;

/**
 * A job as pickers and page captions name it: its key, then its name when that says something more
 * (`nightly-report — Nightly report`), and "(in the recycle bin)" for a deleted one.
 */
export function jobOptionLabel(job: { key: string; name: string; deletedAt?: Date | null }): string {
  const label = job.name && job.name !== job.key ? `${job.key} — ${job.name}` : job.key;
  return job.deletedAt ? `${label} (in the recycle bin)` : label;
}

/**
 * The options of a job picker: live jobs by key, at most JOB_OPTIONS_LIMIT, those whose key or name
 * contains `q` (case-insensitive) when given. `selected` (the id a page's URL filters by) is always
 * among them when such a job exists, also beyond the limit or in the recycle bin, so the picker names
 * the job it filters by instead of showing its id. Reads only id, key, name (no next-fire lookup).
 * @throws DomainError('forbidden') when the actor may not read jobs.
 */
export async function listJobOptions(db: Db, actor: Actor, opts: { q?: string; selected?: string } = {}): Promise<JobOption[]> {
  requireCan(actor, 'read');
  const q = opts.q?.trim().slice(0, 200);
  const select = { id: true, key: true, name: true, deletedAt: true } as const;
  const [jobs, selected] = await Promise.all([
    db.job.findMany({
      where: {
        deletedAt: null,
        ...(q ? { OR: [{ key: { contains: escapeLike(q), mode: 'insensitive' as const } }, { name: { contains: escapeLike(q), mode: 'insensitive' as const } }] } : {}),
      },
      orderBy: [{ key: 'asc' }, { id: 'asc' }],
      take: JOB_OPTIONS_LIMIT,
      select,
    }),
    opts.selected && isUuid(opts.selected) ? db.job.findUnique({ where: { id: opts.selected.toLowerCase() }, select }) : Promise.resolve(null),
  ]);
  const options = jobs.map((j) => ({ value: j.id, label: jobOptionLabel(j) }));
  if (selected && !options.some((o) => o.value === selected.id)) options.unshift({ value: selected.id, label: jobOptionLabel(selected) });
  return options;
}
