/**
 * The one reading of a `grpc` step's `.proto` source (its `proto`, `service` and `method`
 * config): the worker parses it before every call (worker/handlers/grpc-proto.ts) and saving a
 * job parses it too (lib/handlers/check-payloads.ts), so a proto the worker would refuse is
 * refused at the field when it is written. The caller passes protobufjs in: the worker loads it
 * synchronously at its first gRPC step, the console by a dynamic import (loadProtobuf), so
 * neither keeps it in memory until a gRPC step needs it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type protobuf from 'protobufjs';

type Protobuf = typeof protobuf;

/** A `grpc` config field the proto makes wrong: `field` is `config.proto`, `config.service` or `config.method`. */
export class GrpcProtoError extends Error {
  constructor(
    readonly field: 'config.proto' | 'config.service' | 'config.method',
    readonly detail: string,
  ) {
    super(`grpc: ${field}: ${detail}`);
    this.name = 'GrpcProtoError';
  }
}

/** protobufjs for the console (the worker requires it synchronously instead). */
export async function loadProtobuf(): Promise<Protobuf> {
  const mod = (await import('protobufjs')) as unknown as { default?: Protobuf } & Protobuf;
  return mod.default ?? mod;
}

/**
 * Parses proto source text into a resolved root. Well-known `google/protobuf/*.proto` imports
 * resolve from protobufjs' bundled copies; any other import is refused.
 * @throws GrpcProtoError at `config.proto` (syntax error, import not available, unresolved type)
 */
export function parseProtoSource(pb: Protobuf, source: string): protobuf.Root {
  // protobufjs resolves imports through files; the step's source is written to a private
  // temporary folder (removed at once), so the only other imports that resolve are the
  // well-known types protobufjs ships.
  const dir = mkdtempSync(path.join(tmpdir(), 'tickflow-proto-'));
  const file = path.join(dir, 'step.proto');
  const refused: string[] = [];
  try {
    writeFileSync(file, source, { mode: 0o600 });
    const root = new pb.Root();
    // Only the step's own file may be read. protobufjs serves the well-known google/protobuf/*.proto
    // imports from its bundled copies before asking resolvePath; any other import — relative, or an
    // absolute path that would read a file of the host into an error message — is refused.
    root.resolvePath = (origin: string, target: string) => {
      if (origin === '' && target === file) return file;
      refused.push(target);
      return null;
    };
    root.loadSync(file, { keepCase: false });
    if (refused.length) {
      throw new GrpcProtoError('config.proto', `import ${refused.map((r) => `"${r}"`).join(', ')} is not available (only the well-known google/protobuf/*.proto imports are)`);
    }
    root.resolveAll();
    return root;
  } catch (err) {
    if (err instanceof GrpcProtoError) throw err;
    const raw = (err as Error).message ?? String(err);
    // the temporary folder's name means nothing to whoever reads the error
    const message = raw.split(dir + path.sep).join('').split(dir).join('').replace(/\s+/g, ' ');
    throw new GrpcProtoError('config.proto', `does not parse: ${message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function servicesOf(pb: Protobuf, ns: protobuf.NamespaceBase, out: string[] = []): string[] {
  for (const child of ns.nestedArray) {
    if (child instanceof pb.Service) out.push(child.fullName.replace(/^\./, ''));
    if (child instanceof pb.Namespace || child instanceof pb.Type) servicesOf(pb, child as protobuf.NamespaceBase, out);
  }
  return out;
}

/**
 * Finds `service` (fully qualified, e.g. `demo.v1.Greeter`) and its `method` in a parsed root.
 * @throws GrpcProtoError at `config.service` / `config.method` saying what the proto offers;
 *   client-streaming and bidirectional methods are refused (`config.method`)
 */
export function findProtoMethod(pb: Protobuf, root: protobuf.Root, service: string, method: string): { service: protobuf.Service; method: protobuf.Method } {
  const svc = root.lookup(service.replace(/^\./, ''));
  if (!(svc instanceof pb.Service)) {
    throw new GrpcProtoError('config.service', `unknown service "${service}" (the proto defines: ${servicesOf(pb, root).join(', ') || 'no service'})`);
  }
  const m = Object.hasOwn(svc.methods, method) ? svc.methods[method] : undefined;
  if (!m) {
    throw new GrpcProtoError('config.method', `unknown method "${method}" of ${service} (methods: ${Object.keys(svc.methods).join(', ') || 'none'})`);
  }
  if (m.requestStream) {
    throw new GrpcProtoError('config.method', `${service}/${method} is ${m.responseStream ? 'bidirectional' : 'client'}-streaming; only unary and server-streaming methods are supported`);
  }
  m.resolve();
  return { service: svc, method: m };
}

/**
 * What the worker would say about a `grpc` config's proto, service and method, or null when it
 * would call. The config's other fields are the schema's (builtin-schemas.ts GrpcConfig).
 */
export function grpcProtoProblem(pb: Protobuf, config: { proto: string; service: string; method: string }): GrpcProtoError | null {
  try {
    findProtoMethod(pb, parseProtoSource(pb, config.proto), config.service, config.method);
    return null;
  } catch (err) {
    if (err instanceof GrpcProtoError) return err;
    throw err;
  }
}
