import { rest } from '@/app/_lib/rest';
import { buildOpenApiDocument } from '@/lib/api/openapi';

export const dynamic = 'force-dynamic';

/** GET /api/v1/openapi.json (no auth): the OpenAPI 3.1 document, schemas generated from lib/api/schemas.ts */
export const GET = rest({ operation: 'openapi' }, async () => buildOpenApiDocument());
