import { rest } from '@/app/_lib/rest';
import { loadHandlerCatalogue } from '@/lib/handlers/catalogue';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/handlers -> { items: [{ name, builtin, description, inputSchema, timeoutSeconds, maxRetries,
 * available, lastOfferedAt }] }: every handler a step may name, with what workers advertise (docs/handlers.md).
 */
export const GET = rest({ operation: 'handlers.list' }, async ({ db, now }) => ({ items: await loadHandlerCatalogue(db, now) }));
