import { rest } from '@/app/_lib/rest';
import { listAlarms, ListAlarmsQuery } from '@/lib/alarms/list-alarms';

export const dynamic = 'force-dynamic';

/** GET /api/v1/alarms?type=&status=&jobId=&limit=&before= (any role) -> { items: AlarmView[], nextBefore } newest first. */
export const GET = rest({ operation: 'alarms.list', queryParsedBy: ListAlarmsQuery }, ({ db, query }) => listAlarms(db, query));
