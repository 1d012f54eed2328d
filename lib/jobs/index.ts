// Job domain operations (one per file; each takes `db = getDb()` first, an Actor, and `now` last where time matters).
export * from './job-view.ts';
export * from './job-input.ts';
export { createJob } from './create-job.ts';
export { updateJob, applyJobChanges, assertExpectedVersion, versionConflict, type JobChanges } from './update-job.ts';
export { saveDag } from './save-dag.ts';
export { pauseJob } from './pause-job.ts';
export { resumeJob, resumeRefusal } from './resume-job.ts';
export { deleteJob } from './delete-job.ts';
export { restoreJob } from './restore-job.ts';
export { purgeJob, purgeExpiredJobs } from './purge-job.ts';
export { listVersions, getJobVersion, type JobVersionView, type JobVersionListItem } from './list-versions.ts';
export { diffVersions, diffSnapshots, diffValues, type SnapshotDiff, type VersionDiff, type FieldChange } from './diff-versions.ts';
export { rollbackJob } from './rollback-job.ts';
export { triggerJob, type TriggerResult } from './trigger-job.ts';
export { listJobs, listRecycleBin, type ListJobsResult } from './list-jobs.ts';
export { getJob, getJobByKey, type JobDetail } from './get-job.ts';
export { bulkJobs, bulkJobsEach, type BulkAction, type BulkItemResult } from './bulk-jobs.ts';
export { importCrontab, crontabJobInput, type ImportCrontabResult, type ImportSkip } from './import-crontab.ts';
