/**
 * `grpc` executor: one gRPC call per attempt (docs/handlers.md "grpc").
 *
 * Step config (checked first; an unknown or bad key fails the attempt naming
 * `config.<key>`, without retries):
 * - `address` `host:port` (`[v6]:port` for IPv6), `service` (fully qualified,
 *   `demo.v1.Greeter`), `method`, `proto` (the .proto source, inline; the well-known
 *   `google/protobuf/*.proto` imports work);
 * - `tls` (default false = plaintext), `tlsCa` (PEM of the CA to trust instead of the
 *   system's), `tlsServerName` (name the certificate must carry, default the host);
 * - `metadata`: `{ key: value }` sent with the call (`-bin` keys take base64 values).
 * The payload is the request message as JSON (worker/handlers/grpc-proto.ts: checked
 * field by field before sending). The output is the response as JSON; for a
 * server-streaming method `{ messages: [...], count }`, each message also written as a
 * task log line. The task timeout is the call's deadline; cancellation or the timeout
 * cancels the call. A status other than OK fails the attempt with the status code name
 * and details (`UNAVAILABLE` for an address nobody answers on).
 */
import { createRequire } from 'node:module';
import type * as grpc from '@grpc/grpc-js';
import { GrpcConfig } from '../../lib/handlers/builtin-schemas.ts';
import { OutboundRefusedError, resolveOutboundAddress, withoutProxyHeaders } from '../../lib/net/outbound.ts';
import { describeIssues } from './function-executor.ts';
import { checkMessage, parseProto, resolveMethod } from './grpc-proto.ts';
import { HandlerError, type Handler, type HandlerContext } from './types.ts';

/**
 * @grpc/grpc-js, loaded at the first gRPC step (synchronously: it is CommonJS): a worker that
 * runs none does not keep it in memory (docs/operations.md "Worker memory").
 */
const requireFromHere = createRequire(import.meta.url);
let grpcLib: typeof grpc | undefined;
const grpcJs = (): typeof grpc => (grpcLib ??= requireFromHere('@grpc/grpc-js') as typeof grpc);

/**
 * Streamed messages kept in the output: at most this many, and at most GRPC_MAX_KEPT_BYTES of
 * JSON (the task output cap, worker/output.ts); the rest are counted and logged, not kept, so a
 * long stream cannot exhaust the worker's memory.
 */
export const GRPC_MAX_KEPT_MESSAGES = 10_000;
export const GRPC_MAX_KEPT_BYTES = 1024 * 1024;
/** Longest streamed message text written to the task log. */
const LOG_LINE_MAX_CHARS = 4000;

/** The step config's schema: lib/handlers/builtin-schemas.ts (a save checks the config with it too). */
export { GrpcConfig };

function configError(message: string): HandlerError {
  return new HandlerError(`grpc: ${message}`, { code: 'config', retryable: false });
}

/**
 * Splits `host:port` / `[v6]:port`.
 * @throws HandlerError naming `config.address`
 */
export function parseGrpcAddress(address: string): { host: string; port: number } {
  const m = /^\[([0-9A-Fa-f:.]+)\]:(\d{1,5})$/.exec(address) ?? /^([A-Za-z0-9.-]+):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[2]) : NaN;
  if (!m || !(port >= 1 && port <= 65535)) {
    throw configError(`config.address: must be host:port (or [ipv6]:port), got ${JSON.stringify(address.slice(0, 200))}`);
  }
  return { host: m[1]!, port };
}

/** Where a call goes: the channel target, and the name TLS verifies and `:authority` carries. */
export interface GrpcTarget {
  /** what grpc-js connects to (`host:port`, or `ip:port` once resolved) */
  target: string;
  /** `host:port` as configured (the HTTP/2 `:authority`) */
  authority: string;
  /** the host name the server certificate must match (TLS) */
  host: string;
}

/**
 * The one place a gRPC step's address becomes a connection target, under the same
 * outbound policy as `http` and webhooks (lib/net/outbound.ts, docs/security.md
 * "Outbound calls"): the host is resolved once and every address checked (no
 * loopback, private, link-local or metadata address unless TICKFLOW_OUTBOUND_ALLOW
 * lists it), and `target` is the checked address, so grpc-js never resolves the name
 * again (DNS rebinding); `authority`/`host` keep the configured name so TLS still
 * verifies it.
 * @param env the environment holding TICKFLOW_OUTBOUND_ALLOW (default process.env)
 * @throws HandlerError naming `config.address` for a malformed or refused address
 *   (code `outbound_refused`, retried like the `http` executor's: DNS may change)
 */
export async function resolveGrpcTarget(address: string, env: NodeJS.ProcessEnv = process.env): Promise<GrpcTarget> {
  const { host, port } = parseGrpcAddress(address);
  const hostPort = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  let checked: { address: string; family: 4 | 6 };
  try {
    checked = await resolveOutboundAddress(host, port, env);
  } catch (err) {
    if (err instanceof OutboundRefusedError) {
      throw new HandlerError(`grpc: config.address: ${err.message}`, { code: err.code });
    }
    throw err;
  }
  const target = checked.family === 6 ? `[${checked.address}]:${port}` : `${checked.address}:${port}`;
  return { target, authority: hostPort, host };
}

function credentialsOf(cfg: GrpcConfig): grpc.ChannelCredentials {
  if (!cfg.tls) {
    if (cfg.tlsCa || cfg.tlsServerName) throw configError('config.tls: tlsCa / tlsServerName need "tls": true');
    return grpcJs().credentials.createInsecure();
  }
  try {
    return grpcJs().credentials.createSsl(cfg.tlsCa ? Buffer.from(cfg.tlsCa) : null);
  } catch (err) {
    throw configError(`config.tlsCa: not a usable PEM certificate (${(err as Error).message})`);
  }
}

/** The call's metadata; to a special address (allowed by TICKFLOW_OUTBOUND_ALLOW) without proxy keys (withoutProxyHeaders). */
function metadataOf(cfg: GrpcConfig, address: string): grpc.Metadata {
  const md = new (grpcJs().Metadata)();
  for (const [k, v] of Object.entries(withoutProxyHeaders(address, cfg.metadata))) {
    try {
      if (k.toLowerCase().endsWith('-bin')) md.add(k, Buffer.from(v, 'base64'));
      else md.add(k, v);
    } catch (err) {
      throw configError(`config.metadata.${k}: ${(err as Error).message}`);
    }
  }
  return md;
}

/** Status code name (`UNAVAILABLE`) of a numeric gRPC status. */
export function statusName(code: number | undefined): string {
  return (code !== undefined && grpcJs().status[code]) || `STATUS_${code}`;
}

function callError(err: grpc.ServiceError, label: string, ctx: HandlerContext): unknown {
  if (ctx.signal.aborted) return ctx.signal.reason ?? err;
  const name = statusName(err.code);
  return new HandlerError(`grpc: ${label} failed with status ${name}: ${err.details || err.message}`, { code: name });
}

export const grpcHandler: Handler = async (ctx) => {
  const parsedCfg = GrpcConfig.safeParse(ctx.config);
  if (!parsedCfg.success) throw configError(describeIssues(parsedCfg.error.issues, 'config').message);
  const cfg = parsedCfg.data;
  const proto = parseProto(cfg.proto);
  const m = resolveMethod(proto, cfg.service, cfg.method);
  const label = `${cfg.service}/${cfg.method}`;
  const problems = checkMessage(m.requestType, ctx.payload, 'payload');
  if (problems.length) {
    throw new HandlerError(`grpc: the payload does not fit ${m.requestType.fullName.replace(/^\./, '')}: ${problems.join('; ')}`, { code: 'input', retryable: false });
  }
  const credentials = credentialsOf(cfg);
  metadataOf(cfg, '0.0.0.0'); // a malformed key fails before anything is resolved
  const target = await resolveGrpcTarget(cfg.address);
  const metadata = metadataOf(cfg, target.target.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1'));
  if (ctx.signal.aborted) throw ctx.signal.reason;

  const client = new (grpcJs().Client)(target.target, credentials, {
    'grpc.default_authority': target.authority,
    ...(cfg.tls ? { 'grpc.ssl_target_name_override': cfg.tlsServerName ?? target.host } : {}),
    // One call per attempt: no retries or reconnect loops inside the attempt.
    'grpc.enable_retries': 0,
  });
  const deadline = new Date(Date.now() + Math.max(1, ctx.timeoutMs));
  const def = m.definition;
  try {
    if (!def.responseStream) {
      return await new Promise<unknown>((resolve, reject) => {
        const call = client.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, ctx.payload, metadata, { deadline }, (err, res) => {
          ctx.signal.removeEventListener('abort', onAbort);
          if (err) reject(callError(err, label, ctx));
          else resolve(res);
        });
        const onAbort = () => call.cancel();
        ctx.signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    const messages: unknown[] = [];
    let count = 0;
    let keptBytes = 0;
    await new Promise<void>((resolve, reject) => {
      const call = client.makeServerStreamRequest(def.path, def.requestSerialize, def.responseDeserialize, ctx.payload, metadata, { deadline });
      const onAbort = () => call.cancel();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      call.on('data', (msg: unknown) => {
        count++;
        const text = JSON.stringify(msg) ?? 'null';
        if (messages.length < GRPC_MAX_KEPT_MESSAGES && keptBytes + text.length <= GRPC_MAX_KEPT_BYTES && messages.length === count - 1) {
          messages.push(msg);
          keptBytes += text.length;
        }
        ctx.taskLog.info(text.length > LOG_LINE_MAX_CHARS ? `${text.slice(0, LOG_LINE_MAX_CHARS)}…` : text, { stream: 'grpc', message: count });
      });
      call.on('error', (err: grpc.ServiceError) => {
        ctx.signal.removeEventListener('abort', onAbort);
        reject(callError(err, label, ctx));
      });
      call.on('status', (s: grpc.StatusObject) => {
        if (s.code !== grpcJs().status.OK) return; // 'error' reports it
        ctx.signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
    return { messages, count, ...(count > messages.length ? { droppedMessages: count - messages.length } : {}) };
  } finally {
    client.close();
  }
};
