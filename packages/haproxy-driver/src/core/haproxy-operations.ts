import { JoinedText, type JsonObject, type JsonValue, type ObjectRef } from '@portolan/desired-state';
import type { Operation } from '@portolan/appliance-driver';
import { PortolanError } from '@portolan/errors';
import type { BackendSlots, BundleFile, CertificateFile, MapEntry, ServerSlot, SlotState } from './haproxy-bundle.ts';
import type { MapEdit } from './map-edit.ts';

/**
 * The HAProxy driver's operations, typed. They travel as plain `Operation`s (JSON payloads, recorded in the
 * apply log) and are decoded again before execution. No payload holds secret material: a certificate write
 * names the Secret, resolved only when it runs.
 */
export type HaproxyOperation =
  /** Structural change: write every file, validate with `haproxy -c`, dump server state, reload, verify. */
  | {
      readonly kind: 'reload';
      readonly reasons: readonly string[];
      readonly files: readonly BundleFile[];
      readonly certificates: readonly CertificateFile[];
      readonly backends: readonly BackendSlots[];
    }
  /** Runtime API: point one server slot at a member (or free it). */
  | { readonly kind: 'server'; readonly backend: string; readonly slot: ServerSlot }
  /**
   * Runtime API: replace one map's entries atomically (prepare/add/commit), or with `edit` change only the entries
   * that differ (each atomic on its own); then rewrite its file with `entries`.
   */
  | { readonly kind: 'map'; readonly path: string; readonly entries: readonly MapEntry[]; readonly edit?: MapEdit }
  /**
   * Runtime API: replace a served certificate (`set ssl cert` + commit) and rewrite its PEM file; with `create`, one
   * HAProxy has not loaded yet (`new ssl cert` first), for a crt-list line added at runtime.
   */
  | { readonly kind: 'ssl-cert'; readonly certificate: CertificateFile; readonly create?: boolean }
  /** Runtime API: remove then add crt-list lines (never the first, the default certificate), and rewrite the file. */
  | {
      readonly kind: 'crt-list';
      readonly path: string;
      readonly remove: readonly string[];
      readonly add: readonly string[];
      readonly content: string;
    }
  /** Runtime API: drop a certificate no crt-list names any more (`del ssl cert`), and its PEM file. */
  | { readonly kind: 'ssl-cert-del'; readonly path: string }
  /** Rewrite the server lines of some backends in haproxy.cfg, as the Runtime API already set them (no reload). */
  | { readonly kind: 'config-slots'; readonly backends: readonly BackendSlots[] }
  /** Rewrite a file without touching the running process (so a later reload sees the runtime changes). */
  | { readonly kind: 'file'; readonly file: BundleFile };

/** Encodes a typed operation as the driver-neutral `Operation`. */
export function toOperation(op: HaproxyOperation): Operation {
  switch (op.kind) {
    case 'reload':
      return {
        objectType: 'reload',
        objectName: 'haproxy.cfg',
        action: 'update',
        payload: {
          reasons: [...op.reasons],
          files: op.files.map((f) => fileJson(f)),
          certificates: op.certificates.map((c) => certificateJson(c)),
          // The render's own slot lists: plain objects of exactly a slot's five fields (assign-slots.ts), so the apply
          // log's value tree finds them by identity where the read-back holds them, instead of encoding 160k copies.
          backends: op.backends.map((b) => ({ name: b.name, slots: b.slots as unknown as readonly JsonObject[] })),
        },
        summary: `reload: ${op.reasons.join('; ')}`,
      };
    case 'server':
      return {
        objectType: 'server',
        objectName: `${op.backend}/${op.slot.name}`,
        action: 'update',
        payload: { backend: op.backend, slot: slotJson(op.slot) },
        summary: `${op.backend}/${op.slot.name} → ${describeSlot(op.slot)}`,
      };
    case 'map':
      return mapOperation(op);
    case 'ssl-cert':
    case 'crt-list':
      return tlsOperation(op);
    case 'ssl-cert-del':
      return {
        objectType: 'ssl-cert-del',
        objectName: op.path,
        action: 'delete',
        payload: { path: op.path },
        summary: `certificate ${op.path} dropped (no listener serves it)`,
      };
    case 'config-slots':
      return {
        objectType: 'config-slots',
        objectName: 'haproxy.cfg',
        action: 'update',
        payload: { backends: op.backends.map((b) => ({ name: b.name, slots: b.slots.map((s) => slotJson(s)) })) },
        summary: `haproxy.cfg: server lines of ${op.backends.length} backend(s) as set at runtime`,
      };
    case 'file':
      return {
        objectType: 'file',
        objectName: op.file.path,
        action: 'update',
        payload: { file: fileJson(op.file) },
        summary: `rewrite ${op.file.path}`,
      };
  }
}

function mapOperation(op: Extract<HaproxyOperation, { kind: 'map' }>): Operation {
  const pairs = (entries: readonly MapEntry[]): JsonValue[] => entries.map(([k, v]) => [k, v]);
  const edit = op.edit;
  return {
    objectType: 'map',
    objectName: op.path,
    action: 'update',
    payload: {
      path: op.path,
      entries: pairs(op.entries),
      ...(edit === undefined ? {} : { edit: { add: pairs(edit.add), set: pairs(edit.set), del: [...edit.del] } }),
    },
    summary:
      edit === undefined
        ? `map ${op.path}: ${op.entries.length} entries`
        : `map ${op.path}: ${edit.add.length} added, ${edit.set.length} changed, ${edit.del.length} removed`,
  };
}

function decodeEntry(value: JsonValue): MapEntry {
  const [k, v] = array(value);
  return [string(k), string(v)] as const;
}

function tlsOperation(op: Extract<HaproxyOperation, { kind: 'ssl-cert' | 'crt-list' }>): Operation {
  if (op.kind === 'crt-list')
    return {
      objectType: 'crt-list',
      objectName: op.path,
      action: 'update',
      payload: { path: op.path, remove: [...op.remove], add: [...op.add], content: op.content },
      summary: `crt-list ${op.path}: ${op.add.length} line(s) added, ${op.remove.length} removed`,
    };
  const secret = op.certificate.secret;
  return {
    objectType: 'ssl-cert',
    objectName: op.certificate.path,
    action: 'update',
    payload: { certificate: certificateJson(op.certificate), ...(op.create === true ? { create: true } : {}) },
    summary: `${op.create === true ? 'new ' : ''}certificate ${op.certificate.path} from secret ${secret.namespace}/${secret.name}`,
  };
}

/** Decodes an `Operation` made by `toOperation`; null when it is not one of ours or is malformed. */
export function fromOperation(op: Operation): HaproxyOperation | null {
  const p = op.payload;
  if (p === null) return null;
  try {
    switch (op.objectType) {
      case 'reload':
        return {
          kind: 'reload',
          reasons: array(p['reasons']).map(string),
          files: array(p['files']).map(decodeFile),
          certificates: array(p['certificates']).map(decodeCertificate),
          backends: array(p['backends']).map(decodeBackend),
        };
      case 'server':
        return { kind: 'server', backend: string(p['backend']), slot: decodeSlot(p['slot']) };
      case 'map': {
        const entries = array(p['entries']).map(decodeEntry);
        const edit = p['edit'];
        if (edit === undefined || edit === null) return { kind: 'map', path: string(p['path']), entries };
        const e = object(edit);
        return {
          kind: 'map',
          path: string(p['path']),
          entries,
          edit: {
            add: array(e['add']).map(decodeEntry),
            set: array(e['set']).map(decodeEntry),
            del: array(e['del']).map(string),
          },
        };
      }
      case 'ssl-cert':
        return p['create'] === true
          ? { kind: 'ssl-cert', certificate: decodeCertificate(p['certificate']), create: true }
          : { kind: 'ssl-cert', certificate: decodeCertificate(p['certificate']) };
      case 'ssl-cert-del':
        return { kind: 'ssl-cert-del', path: string(p['path']) };
      case 'crt-list':
        return {
          kind: 'crt-list',
          path: string(p['path']),
          remove: array(p['remove']).map(string),
          add: array(p['add']).map(string),
          content: string(p['content']),
        };
      case 'config-slots':
        return { kind: 'config-slots', backends: array(p['backends']).map(decodeBackend) };
      case 'file':
        return { kind: 'file', file: decodeFile(p['file']) };
      default:
        return null;
    }
  } catch (e) {
    if (e instanceof MalformedOperationError) return null;
    throw e;
  }
}

/** One-line description of a slot for summaries. */
export function describeSlot(slot: ServerSlot): string {
  return slot.state === 'maint' ? 'free' : `${slot.address}:${slot.port} ${slot.state} weight ${slot.weight}`;
}

function slotJson(s: ServerSlot): JsonObject {
  return { name: s.name, address: s.address, port: s.port, state: s.state, weight: s.weight };
}

/**
 * A file as JSON. haproxy.cfg as the renderer made it stays a JoinedText of its sections (it serialises as the
 * joined string, so the payload is JSON wherever it travels): its text is joined only when the reload writes it,
 * and the apply log stores it as the same section pieces as the read-back.
 */
function fileJson(f: BundleFile): JsonObject {
  return { path: f.path, content: f.content as JsonValue };
}

function certificateJson(c: CertificateFile): JsonObject {
  const s = c.secret;
  return {
    path: c.path,
    fingerprint: c.fingerprint,
    secret: { cluster: s.cluster, kind: s.kind, namespace: s.namespace, name: s.name },
  };
}

function decodeSlot(value: JsonValue | undefined): ServerSlot {
  const o = object(value);
  const state = string(o['state']);
  if (state !== 'ready' && state !== 'drain' && state !== 'maint') throw new MalformedOperationError('bad slot state');
  return {
    name: string(o['name']),
    address: string(o['address']),
    port: number(o['port']),
    state: state as SlotState,
    weight: number(o['weight']),
  };
}

function decodeBackend(value: JsonValue | undefined): BackendSlots {
  const o = object(value);
  return { name: string(o['name']), slots: array(o['slots']).map(decodeSlot) };
}

function decodeFile(value: JsonValue | undefined): BundleFile {
  const o = object(value);
  const content: unknown = o['content'];
  return { path: string(o['path']), content: content instanceof JoinedText ? content : string(o['content']) };
}

function decodeCertificate(value: JsonValue | undefined): CertificateFile {
  const o = object(value);
  const s = object(o['secret']);
  const secret: ObjectRef = {
    cluster: string(s['cluster']),
    kind: string(s['kind']) as ObjectRef['kind'],
    namespace: string(s['namespace']),
    name: string(s['name']),
  };
  return { path: string(o['path']), fingerprint: string(o['fingerprint']), secret };
}

function object(value: JsonValue | undefined): JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new MalformedOperationError('expected object');
  return value as JsonObject;
}

function array(value: JsonValue | undefined): readonly JsonValue[] {
  if (!Array.isArray(value)) throw new MalformedOperationError('expected array');
  return value;
}

function string(value: JsonValue | undefined): string {
  if (typeof value !== 'string') throw new MalformedOperationError('expected string');
  return value;
}

function number(value: JsonValue | undefined): number {
  if (typeof value !== 'number') throw new MalformedOperationError('expected number');
  return value;
}

/** A payload that does not have the shape `toOperation` gives (read by `fromOperation`, which answers null). */
class MalformedOperationError extends PortolanError {
  readonly code = 'HAPROXY_MALFORMED_OPERATION';
}
