/** REST shapes of task log lines (docs/task-logs.md). */

export type TaskLogLineLevel = 'debug' | 'info' | 'warn' | 'error';
export type TaskLogLineStream = 'log' | 'stdout' | 'stderr' | 'progress' | 'system';

/** One stored line of one attempt. `time` is ISO UTC; `fields` only when the line has some. */
export type TaskLogLineView = {
  seq: number;
  time: string;
  level: TaskLogLineLevel;
  stream: TaskLogLineStream;
  text: string;
  fields?: unknown;
};

/** The latest progress report of an attempt (`ctx.progress`). */
export type TaskProgressView = { done: number | null; total: number | null; text: string; time: string };

/** GET /api/v1/tasks/:id/logs */
export type TaskLogLinesPage = {
  taskId: string;
  runId: string;
  jobId: string;
  stepKey: string;
  /** the attempt these lines belong to */
  attempt: number;
  /** the task's current attempt (attempts 1..attempts may have lines) */
  attempts: number;
  /** the task's current status (`pending` before its attempt is claimed, `running` while it runs, …) */
  taskStatus: string;
  /** the attempt is over: no line will be added, except the last flush of its worker (≤ 1 s) */
  final: boolean;
  /** the attempt's lease was reclaimed (its worker stopped answering): its last flush interval of lines may be missing */
  leaseReclaimed: boolean;
  progress: TaskProgressView | null;
  lines: TaskLogLineView[];
  /** pass as afterSeq to read on (equals the afterSeq asked for when there was no new line) */
  nextAfterSeq: number;
  /** more lines are already stored after this page */
  more: boolean;
};

/** One hit of GET /api/v1/logs/search: the line with its task, run and job. */
export type TaskLogSearchHit = TaskLogLineView & {
  taskId: string;
  attempt: number;
  stepKey: string | null;
  runId: string;
  jobId: string;
  jobKey: string | null;
  /** the job was purged (its runs and logs are kept): named as text (lib/jobs/purged-job-ids.ts) */
  jobPurged: boolean;
};
