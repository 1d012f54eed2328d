/**
 * The body check of server action requests (a POST with the `Next-Action` header), done by
 * proxy.ts before Next sees the request so that a body Next cannot decode is a 400 naming what is
 * wrong: Next's action handler (node_modules/next/dist/server/app-render/action-handler.js) hands
 * it to React's decodeReply, whose SyntaxError ("Unexpected token 'o'") or malformed-multipart
 * error becomes a 500.
 *
 * What the browser sends (Next's client, server-action-reducer.js, body = React's encodeReply of
 * the argument list): JSON text of that array (`text/plain;charset=UTF-8`, fetch's type for a
 * string body) when no argument needs a row of its own, else FormData (`multipart/form-data`)
 * whose field `0` is that JSON array. Forms posted before hydration carry no `Next-Action` header
 * (the action id is a form field) and are not checked here. So, for a request with the header:
 * - `text/plain` (any parameters): a non-empty UTF-8 body holding a JSON array of plain values
 *   (PLAIN_REPLY_STRING, at most MAX_ACTION_ARGUMENT_DEPTH deep);
 * - `multipart/form-data`: a body that parses as FormData, with a text field `0` holding such a JSON
 *   array, which may also name FormData arguments (`$K<n>`);
 * - no other content type.
 * A body larger than ACTION_BODY_LIMIT_BYTES is refused with a 413 (`tooLarge`), read no further than
 * the limit: Next's own refusal of such a body ("Body exceeded 1 MB limit") is a 500.
 */

import { readAtMost } from '../net/read-capped.ts';

/**
 * Next's default `serverActions.bodySizeLimit` (1 MB), which next.config.ts keeps (action-body.test.ts
 * checks that it sets no other).
 */
export const ACTION_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Why a server action request's body is refused: the field (`content-type` or `_body`) and a
 * message; `tooLarge` for a body over the limit (a 413, not a 400).
 */
export type ActionBodyRefusal = { field: 'content-type' | '_body'; message: string; tooLarge?: true };

/** The refusal of a body over `limit` bytes (declared by Content-Length, or found while reading). */
function tooLargeRefusal(limit: number): ActionBodyRefusal {
  return { field: '_body', message: `The body is larger than ${limit} bytes, the most a console form or server action takes`, tooLarge: true };
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The `$` strings a Tickflow action's arguments can hold, as React's encodeReply writes them: an
 * escaped `$`, undefined, a BigInt, a Date, the non-finite numbers and -0, and in a multipart body
 * a FormData (`$K<n>`, whose entries are the fields `<n>_…`: the sign-in form). Every action takes
 * plain values and, the sign-in, a FormData (app/_actions/define-action.ts checks them). Any other
 * (`$1`, `$@1`, `$Q1`, `$B1`, `$h1`, `$T`…) points to a part, a Blob, a server reference or a
 * temporary reference no action takes; React's decodeReply throws on a missing or malformed one
 * ("Connection closed", "Invalid forward reference", "Referenced Blob is not a Blob"), which Next
 * answers with a 500, so they are refused here.
 */
const PLAIN_REPLY_STRING = /^(?:[^$]|\$\$|\$undefined$|\$NaN$|\$-?Infinity$|\$-0$|\$n-?\d+$|\$D)/s;
const FORM_DATA_REFERENCE = /^\$K\d+$/;

/**
 * The deepest nesting of arrays and objects an action's arguments may have: React's decodeReply
 * walks them recursively and overflows the stack near 5,000 levels (a 500); REST payloads stop at 64
 * levels (lib/api/validation.ts), and an action's arguments wrap a payload in a few levels more.
 */
export const MAX_ACTION_ARGUMENT_DEPTH = 100;

/**
 * The first string of `value` that no action's arguments hold (see PLAIN_REPLY_STRING), or
 * "nesting" when it nests deeper than MAX_ACTION_ARGUMENT_DEPTH. Walked without recursion: 1 MB of
 * `[` nests deeply.
 */
function unacceptedContent(value: unknown, formDataAllowed: boolean): string | null {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (v !== '' && !PLAIN_REPLY_STRING.test(v) && !(formDataAllowed && FORM_DATA_REFERENCE.test(v))) return v;
    } else if (v && typeof v === 'object') {
      if (depth >= MAX_ACTION_ARGUMENT_DEPTH) return 'nesting';
      for (const child of Object.values(v)) stack.push([child, depth + 1]);
    }
  }
  return null;
}

function jsonArrayRefusal(text: string, where: string, multipart: boolean): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return `${where} is not JSON (${(e as Error).message.slice(0, 200)}): a server action's arguments are a JSON array`;
  }
  if (!Array.isArray(parsed)) return `${where} is JSON but not an array: a server action's arguments are a JSON array`;
  const found = unacceptedContent(parsed, multipart);
  if (found === null) return null;
  if (found === 'nesting') return `${where} nests deeper than ${MAX_ACTION_ARGUMENT_DEPTH} levels`;
  return `${where} holds ${JSON.stringify(found.slice(0, 40))}, a reference no action takes (a string starting with $ is written $$)`;
}

/**
 * Why a server action request's body cannot be decoded or is over `limit`, or null when it can.
 * Reads `req`'s body, at most `limit` bytes of it: give it a request whose body nothing else reads
 * (the proxy's copy, or a clone).
 * @param req the POST with the `Next-Action` header
 * @param limit the most bytes read (Next's serverActions.bodySizeLimit)
 */
export async function actionBodyRefusal(req: Request, limit: number = ACTION_BODY_LIMIT_BYTES): Promise<ActionBodyRefusal | null> {
  const contentType = req.headers.get('content-type') ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const multipart = mediaType === 'multipart/form-data';
  if (!multipart && mediaType !== 'text/plain') {
    return {
      field: 'content-type',
      message: `Content-Type ${JSON.stringify(contentType.slice(0, 100))} is not one a server action accepts: text/plain (JSON arguments) or multipart/form-data`,
    };
  }
  const declared = Number(req.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) return tooLargeRefusal(limit);
  const bytes = await readAtMost(req.body, limit);
  if (bytes === null) return tooLargeRefusal(limit);
  if (bytes.byteLength === 0) return { field: '_body', message: "The body is empty: a server action's arguments are a JSON array" };
  if (!multipart) {
    let text: string;
    try {
      text = STRICT_UTF8.decode(bytes);
    } catch {
      return { field: '_body', message: 'The body is not valid UTF-8' };
    }
    const refused = jsonArrayRefusal(text, 'The body', false);
    return refused ? { field: '_body', message: refused } : null;
  }
  const form = await parsedForm(bytes, contentType);
  if (!form) return NOT_MULTIPART;
  const root = form.get('0');
  if (typeof root !== 'string') return { field: '_body', message: "The form has no text field 0: a server action's arguments are a JSON array in field 0" };
  const refused = jsonArrayRefusal(root, 'Field 0 of the form', true);
  return refused ? { field: '_body', message: refused } : null;
}

const NOT_MULTIPART: ActionBodyRefusal = { field: '_body', message: 'The body is not multipart/form-data with the boundary its Content-Type names' };

/** `bytes` parsed as the FormData its `contentType` names, or null when they are not one. */
async function parsedForm(bytes: Uint8Array, contentType: string): Promise<FormData | null> {
  try {
    return await new Response(bytes as BodyInit, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return null;
  }
}

/**
 * Why a form posted without the `Next-Action` header (a `multipart/form-data` POST to a console
 * page: a form sent before hydration, whose action id is a form field; lib/auth/action-origin.ts
 * mayBeServerAction) cannot be decoded or is over `limit`, or null when it parses as FormData. Next hands such a body to its form parser first, whose "Failed to parse body as FormData"
 * is a 500; which action it names, and whether that action exists, is left to Next (a 400 for an
 * unknown one). Reads `req`'s body, as actionBodyRefusal does.
 * @param req the POST; @param limit the most bytes read (Next's serverActions.bodySizeLimit)
 */
export async function formPostBodyRefusal(req: Request, limit: number = ACTION_BODY_LIMIT_BYTES): Promise<ActionBodyRefusal | null> {
  const declared = Number(req.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) return tooLargeRefusal(limit);
  const bytes = await readAtMost(req.body, limit);
  if (bytes === null) return tooLargeRefusal(limit);
  return (await parsedForm(bytes, req.headers.get('content-type') ?? '')) ? null : NOT_MULTIPART;
}
