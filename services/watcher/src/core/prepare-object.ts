import { trimObject, type KubeKind } from '@portolan/kube-model';
import type { ObservedObject } from './object-ledger.ts';

/** Replaces a Secret's plaintext `data` map by the sealed envelope and keyed fingerprint (done in the shell: crypto). */
export type SealSecretData = (data: Readonly<Record<string, string>>) => {
  sealed: unknown;
  fingerprint: string;
  tls?: unknown;
};

/** An API object made ready to publish: identity, trimmed JSON bytes, or why the bytes were left out. */
export type PreparedObject =
  | {
      readonly ok: true;
      readonly identity: ObservedObject;
      readonly bytes: Uint8Array;
      readonly omittedReason: '' | string;
      readonly originalBytes: number;
    }
  | { readonly ok: false; readonly reason: string };

const utf8 = new TextEncoder();

/**
 * Trims an API object (kube-model), seals Secret data, and encodes it as JSON. An object whose encoding exceeds
 * `maxObjectBytes` keeps flowing as identity only with an `omittedReason`, so the planner marks it invalid while
 * every other object keeps flowing. Objects without a name or uid are refused (a decode problem).
 */
export function prepareObject(
  kind: KubeKind,
  raw: unknown,
  options: { maxObjectBytes: number; seal: SealSecretData },
): PreparedObject {
  const meta = metadataOf(raw);
  if (meta === undefined) return { ok: false, reason: `${kind} without metadata.name, uid and resourceVersion` };
  const input = kind === 'Secret' ? sealed(raw as Record<string, unknown>, options.seal) : raw;
  const trimmed = trimObject(kind, input);
  if (!trimmed.ok) return { ok: false, reason: trimmed.message };
  const bytes = utf8.encode(JSON.stringify(trimmed.object));
  if (bytes.length <= options.maxObjectBytes)
    return { ok: true, identity: meta, bytes, omittedReason: '', originalBytes: bytes.length };
  const stub = {
    kind,
    metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion },
  };
  return {
    ok: true,
    identity: meta,
    bytes: utf8.encode(JSON.stringify(stub)),
    omittedReason: `ObjectTooLarge: the trimmed object is ${bytes.length} bytes, over the bus limit of ${options.maxObjectBytes} bytes`,
    originalBytes: bytes.length,
  };
}

/** A deleted object the watcher only knows from its ledger (a delete noticed by a relist): identity-only JSON. */
export function tombstoneBytes(kind: KubeKind, o: ObservedObject): Uint8Array {
  return utf8.encode(
    JSON.stringify({
      kind,
      metadata: { name: o.name, namespace: o.namespace, uid: o.uid, resourceVersion: o.resourceVersion },
    }),
  );
}

/** Name, namespace, uid and resourceVersion of an API object, or undefined when any is missing. */
export function metadataOf(raw: unknown): ObservedObject | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const m = (raw as { metadata?: unknown }).metadata;
  if (typeof m !== 'object' || m === null) return undefined;
  const { name, namespace, uid, resourceVersion } = m as Record<string, unknown>;
  if (typeof name !== 'string' || name === '' || typeof uid !== 'string' || typeof resourceVersion !== 'string')
    return undefined;
  return { name, namespace: typeof namespace === 'string' ? namespace : '', uid, resourceVersion };
}

function sealed(secret: Record<string, unknown>, seal: SealSecretData): Record<string, unknown> {
  const { data, stringData: _plain, ...rest } = secret;
  const map = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  const strings = Object.fromEntries(
    Object.entries(map).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  return { ...rest, data: seal(strings) };
}
