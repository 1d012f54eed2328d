import { rest } from '@/app/_lib/rest';
import { listAlarms, ListAlarmsQuery } from '@/lib/alarms/list-alarms';

export const dynamic = 'force-dynamic';

/** GET /api/v1/alarms?type=&status=&jobId=&limit=&cursor=&before= (any role) -> { items: AlarmView[], nextCursor } newest first (lib/alarms/list-alarms.ts). */
export const GET = rest({ operation: 'alarms.list', queryParsedBy: ListAlarmsQuery }, ({ db, query }) => listAlarms(db, query));
