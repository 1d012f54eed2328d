'use server';

import { importCrontab } from '@/lib/jobs/import-crontab';
import { z } from 'zod';
import { actionArgs, defineAction } from '@/app/_actions/define-action';

/**
 * "Import crontab": lib/jobs importCrontab (which parses the input with
 * ImportCrontabInput; the jobs it makes run `shell`, so it needs the admin role,
 * lib/jobs/handler-permissions.ts). `dryRun: true` is the preview: nothing is
 * written. Field errors come back keyed `text`, `timezone`, `keyPrefix`.
 */
export const importCrontabAction = defineAction('jobs.import', 'Import crontab', actionArgs(['input', z.unknown()]), ({ db, actor }, input: unknown) => importCrontab(db, input, actor), {
  revalidate: (r) => (!r.dryRun && r.created.length ? ['/jobs'] : []),
});
