import { z } from 'zod';
import { rest } from '@/app/_lib/rest';
import { ALARM_STATUSES, ALARM_TYPES } from '@/lib/alarms/config';
import { listAlarms } from '@/lib/alarms/list-alarms';
import { Instant } from '@/lib/api/schemas';

export const dynamic = 'force-dynamic';

const ListAlarmsQuery = z.object({
  type: z.enum(ALARM_TYPES as [string, ...string[]], { message: `type must be one of ${ALARM_TYPES.join(', ')}` }).optional(),
  status: z.enum(ALARM_STATUSES as [string, ...string[]], { message: `status must be one of ${ALARM_STATUSES.join(', ')}` }).optional(),
  jobId: z.string().trim().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  before: Instant.transform((d) => d.toISOString()).optional(),
});

/** GET /api/v1/alarms?type=&status=&jobId=&limit=&before= (any role) -> { items: AlarmView[], nextBefore } newest first. */
export const GET = rest({ operation: 'alarms.list', query: ListAlarmsQuery }, ({ db, query }) => listAlarms(db, query as Parameters<typeof listAlarms>[1]));
