/**
 * The `.proto` side of the gRPC executor (worker/handlers/grpc.ts): parses a step's inline
 * proto source (well-known `google/protobuf/*.proto` imports resolve from protobufjs'
 * bundled copies; any other import is refused), finds the service and method, and checks
 * a JSON payload against the request message before anything is sent, naming the bad
 * field (`payload.items.2.id`). protobufjs' own fromObject coerces silently
 * (`"abc"` → 0 for an int32), which would send a request the operator never wrote.
 *
 * JSON form of messages: protobufjs' object form with lowerCamelCase field names (the
 * proto3 JSON names), enums by name (or number), 64-bit integers as strings or numbers,
 * bytes as base64; well-known types as their messages (`{ "seconds": 1 }` for a Timestamp).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as protoLoader from '@grpc/proto-loader';
import type protobuf from 'protobufjs';
import { findProtoMethod, GrpcProtoError, parseProtoSource } from '../../lib/handlers/grpc-proto.ts';
import { HandlerError } from './types.ts';

/**
 * protobufjs and @grpc/proto-loader, loaded at the first gRPC step (synchronously: both are
 * CommonJS): a worker that runs none does not keep them in memory (docs/operations.md
 * "Worker memory").
 */
const requireFromHere = createRequire(import.meta.url);
let protobufLib: typeof protobuf | undefined;
let protoLoaderLib: typeof protoLoader | undefined;
const protobufjs = (): typeof protobuf => (protobufLib ??= requireFromHere('protobufjs') as typeof protobuf);
const protoLoaderJs = (): typeof protoLoader => (protoLoaderLib ??= requireFromHere('@grpc/proto-loader') as typeof protoLoader);

/** proto-loader options: the JSON form described above, every field present in the output. */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = { keepCase: false, longs: String, enums: String, bytes: String, defaults: true, oneofs: true };

export interface ParsedProto {
  root: protobuf.Root;
  definition: protoLoader.PackageDefinition;
}

const cache = new Map<string, ParsedProto>();
const CACHE_MAX = 64;

function configError(field: string, message: string): HandlerError {
  return new HandlerError(`grpc: ${field}: ${message}`, { code: 'config', retryable: false });
}

function asHandlerError(err: unknown): unknown {
  return err instanceof GrpcProtoError ? configError(err.field, err.detail) : err;
}

/**
 * Parses proto source text (cached by content), by the rule a save applies too (lib/handlers/grpc-proto.ts).
 * @throws HandlerError naming `config.proto` (syntax error, import not available, unresolved type)
 */
export function parseProto(source: string): ParsedProto {
  const key = createHash('sha256').update(source).digest('hex');
  const hit = cache.get(key);
  if (hit) return hit;
  let root: protobuf.Root;
  try {
    root = parseProtoSource(protobufjs(), source);
  } catch (err) {
    throw asHandlerError(err);
  }
  const definition = protoLoaderJs().fromJSON(root.toJSON() as protobuf.INamespace, PROTO_LOADER_OPTIONS);
  const parsed = { root, definition };
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, parsed);
  return parsed;
}

export interface ResolvedMethod {
  /** `/pkg.Service/Method` */
  path: string;
  method: protobuf.Method;
  requestType: protobuf.Type;
  responseType: protobuf.Type;
  definition: protoLoader.MethodDefinition<object, object>;
}

/**
 * Finds `service` (fully qualified, e.g. `demo.v1.Greeter`) and its `method`.
 * @throws HandlerError naming `config.service` / `config.method` with what the proto offers;
 *   client-streaming and bidirectional methods are refused (`config.method`)
 */
export function resolveMethod(parsed: ParsedProto, service: string, method: string): ResolvedMethod {
  let found: ReturnType<typeof findProtoMethod>;
  try {
    found = findProtoMethod(protobufjs(), parsed.root, service, method);
  } catch (err) {
    throw asHandlerError(err);
  }
  const m = found.method;
  const definition = (parsed.definition[found.service.fullName.replace(/^\./, '')] as protoLoader.ServiceDefinition)[method] as protoLoader.MethodDefinition<object, object>;
  return {
    path: definition.path,
    method: m,
    requestType: m.resolvedRequestType!,
    responseType: m.resolvedResponseType!,
    definition,
  };
}

const INT32 = new Set(['int32', 'sint32', 'sfixed32']);
const UINT32 = new Set(['uint32', 'fixed32']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64']);
const UINT64 = new Set(['uint64', 'fixed64']);
const MAX_DEPTH = 64;

function scalarProblem(type: string, v: unknown): string | null {
  const isIntString = (s: unknown, unsigned: boolean) => typeof s === 'string' && (unsigned ? /^\d+$/ : /^-?\d+$/).test(s.trim());
  if (type === 'string') return typeof v === 'string' ? null : 'must be a string';
  if (type === 'bool') return typeof v === 'boolean' ? null : 'must be true or false';
  if (type === 'bytes') return typeof v === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(v) ? null : 'must be a base64 string';
  if (type === 'double' || type === 'float') {
    if (typeof v === 'number' && Number.isFinite(v)) return null;
    if (typeof v === 'string' && (['NaN', 'Infinity', '-Infinity'].includes(v) || (v.trim() !== '' && Number.isFinite(Number(v))))) return null;
    return 'must be a number';
  }
  const range = INT32.has(type) ? [-(2 ** 31), 2 ** 31 - 1] : UINT32.has(type) ? [0, 2 ** 32 - 1] : null;
  if (range) {
    const n = typeof v === 'string' && isIntString(v, false) ? Number(v) : v;
    return typeof n === 'number' && Number.isInteger(n) && n >= range[0]! && n <= range[1]! ? null : `must be an integer between ${range[0]} and ${range[1]} (${type})`;
  }
  if (INT64.has(type) || UINT64.has(type)) {
    const unsigned = UINT64.has(type);
    if (typeof v === 'number' && Number.isSafeInteger(v) && (!unsigned || v >= 0)) return null;
    if (isIntString(v, unsigned)) return null;
    return `must be ${unsigned ? 'a non-negative' : 'an'} integer (a number, or a string for values beyond 2^53) (${type})`;
  }
  return null;
}

function describeType(t: protobuf.Type): string {
  return t.fullName.replace(/^\./, '');
}

/**
 * Checks `value` against message `type`; returns `path: problem` lines (empty when it fits).
 * Unknown fields, wrong JSON types, out-of-range integers, unknown enum names, two members
 * of one oneof: each named by its path.
 */
export function checkMessage(type: protobuf.Type, value: unknown, at: string, depth = 0): string[] {
  if (depth > MAX_DEPTH) return [`${at}: nested more than ${MAX_DEPTH} levels`];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [`${at}: must be a JSON object (message ${describeType(type)})`];
  const problems: string[] = [];
  const obj = value as Record<string, unknown>;
  for (const [key, v] of Object.entries(obj)) {
    const field = type.fields[key];
    const here = `${at}.${key}`;
    if (!field) {
      const byProtoName = Object.values(type.fields).find((f) => f.options?.json_name === key || protobufjs().util.camelCase(key) === f.name);
      problems.push(
        byProtoName
          ? `${here}: unknown field; write it as "${byProtoName.name}" (lowerCamelCase)`
          : `${here}: unknown field of ${describeType(type)} (fields: ${Object.keys(type.fields).join(', ') || 'none'})`,
      );
      continue;
    }
    if (v === null) continue;
    field.resolve();
    if (field.map) {
      if (typeof v !== 'object' || Array.isArray(v)) {
        problems.push(`${here}: must be a JSON object (map<${(field as unknown as protobuf.MapField).keyType}, ${field.type}>)`);
        continue;
      }
      const keyType = (field as unknown as protobuf.MapField).keyType;
      for (const [k, mv] of Object.entries(v as Record<string, unknown>)) {
        if (keyType !== 'string' && keyType !== 'bool') {
          const kp = scalarProblem(keyType, k);
          if (kp) problems.push(`${here}.${k}: map key ${kp}`);
        }
        problems.push(...checkValue(field, mv, `${here}.${k}`, depth + 1));
      }
      continue;
    }
    if (field.repeated) {
      if (!Array.isArray(v)) {
        problems.push(`${here}: must be a JSON array (repeated ${field.type})`);
        continue;
      }
      v.forEach((item, i) => problems.push(...checkValue(field, item, `${here}.${i}`, depth + 1)));
      continue;
    }
    problems.push(...checkValue(field, v, here, depth + 1));
  }
  for (const oneof of type.oneofsArray) {
    const set = oneof.fieldsArray.filter((f) => obj[f.name] !== undefined && obj[f.name] !== null).map((f) => f.name);
    if (set.length > 1 && !oneof.name.startsWith('_')) problems.push(`${at}: ${set.join(' and ')} belong to oneof "${oneof.name}"; set only one`);
  }
  return problems;
}

function checkValue(field: protobuf.Field, v: unknown, at: string, depth: number): string[] {
  const rt = field.resolvedType;
  const pb = protobufjs();
  if (rt instanceof pb.Type) return checkMessage(rt, v, at, depth);
  if (rt instanceof pb.Enum) {
    if (typeof v === 'string' && v in rt.values) return [];
    if (typeof v === 'number' && Object.values(rt.values).includes(v)) return [];
    return [`${at}: must be one of ${Object.keys(rt.values).join(', ')} (enum ${rt.fullName.replace(/^\./, '')})`];
  }
  const p = scalarProblem(field.type, v);
  return p ? [`${at}: ${p}`] : [];
}
