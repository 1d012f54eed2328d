import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkPayload } from './payload-schema.ts';

// The console and the save judge payloads with the JSON Schema a worker advertised (zod's toJSONSchema of the
// handler's input); these cases check that the rebuilt validator agrees with the original zod schema.
const input = z.object({
  url: z.url(),
  n: z.number().int().min(1).max(10).default(3),
  mode: z.enum(['a', 'b']).optional(),
  tags: z.array(z.string()).max(3).optional(),
  nested: z.strictObject({ on: z.boolean() }).optional(),
});
const schema = z.toJSONSchema(input, { io: 'input' }) as Record<string, unknown>;

describe('checkPayload', () => {
  it.each([
    [{ url: 'https://x.test' }],
    [{ url: 'https://x.test', n: 10, mode: 'b', tags: ['a'], nested: { on: true } }],
  ])('accepts %o like the zod schema does', (payload) => {
    expect(input.safeParse(payload).success).toBe(true);
    expect(checkPayload(schema, payload, 'payload').ok).toBe(true);
  });

  it.each([
    [{}, ['steps.1.payload.url']],
    [{ url: 'nope' }, ['steps.1.payload.url']],
    [{ url: 'https://x.test', n: 0 }, ['steps.1.payload.n']],
    [{ url: 'https://x.test', n: 2.5 }, ['steps.1.payload.n']],
    [{ url: 'https://x.test', mode: 'c' }, ['steps.1.payload.mode']],
    [{ url: 'https://x.test', tags: ['a', 1] }, ['steps.1.payload.tags.1']],
    [{ url: 'https://x.test', tags: ['a', 'b', 'c', 'd'] }, ['steps.1.payload.tags']],
    [{ url: 'https://x.test', nested: { on: true, off: false } }, ['steps.1.payload.nested.off']],
  ])('refuses %o at %o, as the zod schema does', (payload, paths) => {
    expect(input.safeParse(payload).success).toBe(false);
    const r = checkPayload(schema, payload, 'steps.1.payload');
    expect(r.ok).toBe(false);
    expect(Object.keys((r as { fields: Record<string, string> }).fields)).toEqual(paths);
  });
});
