import { buildOpenApiDocument } from './openapi.ts';

/** One documented API path: its template as a RegExp, and the methods its route answers. */
interface RouteMethods {
  template: string;
  pattern: RegExp;
  methods: string[];
}

let table: RouteMethods[] | null = null;

/**
 * The documented /api/v1 routes and their methods, from the OpenAPI document
 * (lib/api/openapi.ts), which tests/integration/api-contract.test.ts keeps equal to the
 * methods each route file exports, and the document's own route (GET /openapi.json). `{id}` matches one path segment. Static templates
 * sort first, so `/jobs/bulk` is not taken for `/jobs/{id}`.
 */
function routes(): RouteMethods[] {
  if (table) return table;
  // the document does not list itself: app/api/v1/openapi.json/route.ts answers GET
  const paths = { ...(buildOpenApiDocument().paths as Record<string, Record<string, unknown>>), '/openapi.json': { get: {} } };
  table = Object.entries(paths)
    .map(([template, ops]) => ({
      template,
      pattern: new RegExp(`^/api/v1${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
      methods: Object.keys(ops).map((m) => m.toUpperCase()).sort(),
    }))
    .sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')));
  return table;
}

/**
 * The methods the route at `pathname` answers (GET also allows HEAD; OPTIONS is
 * always answered by Next), or null when no documented route matches (the
 * catch-all then answers a JSON 404).
 * @param pathname a URL path such as `/api/v1/jobs/3f…/pause`
 */
export function allowedMethods(pathname: string): string[] | null {
  const hit = routes().find((r) => r.pattern.test(pathname));
  if (!hit) return null;
  const methods = new Set(hit.methods);
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return [...methods].sort();
}
