import { Buffer } from 'node:buffer';
import { badRequest, conflict, fail, notFound, ok, type ApiError, type ApiResult } from '../core/api-error.ts';
import { applyJsonMergePatch } from '../core/json-merge-patch.ts';
import { applyJsonPatch } from '../core/json-patch.ts';
import { isJsonObject, type JsonObject } from '../core/json-value.ts';
import { isNoopUpdate, prepareCreate, prepareUpdate, type DecodeOptions } from '../core/object-strategy.ts';
import { resourceTypes, servedAs, type KubeObject, type ResourceType } from '../core/resource-types.ts';
import { applyStrategicMergePatch } from '../core/strategic-merge-patch.ts';
import type { ObjectStore } from './object-store.ts';

/** The patch encodings the simulator accepts, by Content-Type. */
export type PatchType =
  'application/merge-patch+json' | 'application/json-patch+json' | 'application/strategic-merge-patch+json';

/** Options shared by writes (fieldValidation and its warnings apply to custom resources). */
export interface WriteOptions extends DecodeOptions {
  readonly subresource?: 'status' | '';
  readonly dryRun?: boolean;
}

/** Delete preconditions (DeleteOptions.preconditions). */
export interface DeletePreconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** What the writer needs from the shell: clock, identity generators and the object size limit. */
export interface WriterEnvironment {
  now(): Date;
  newUid(): string;
  nameSuffix(): string;
  maxObjectBytes(): number;
}

function decodeOptionsOf(options: WriteOptions): DecodeOptions {
  return {
    ...(options.fieldValidation === undefined ? {} : { fieldValidation: options.fieldValidation }),
    ...(options.warnings === undefined ? {} : { warnings: options.warnings }),
  };
}

const namespaceType = resourceTypes.find((t) => t.kind === 'Namespace') as ResourceType;

/** Create/update/patch/delete with the API server's semantics, committing through the ObjectStore. */
export class ObjectWriter {
  private readonly store: ObjectStore;
  private readonly env: WriterEnvironment;
  private nextIp = 10;
  private nextNodePort = 30000;

  constructor(store: ObjectStore, env: WriterEnvironment) {
    this.store = store;
    this.env = env;
  }

  private readonly allocators = {
    allocateClusterIp: (): string => {
      const n = this.nextIp++;
      return `10.96.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
    },
    allocateNodePort: (): number => {
      const port = this.nextNodePort;
      this.nextNodePort = port >= 32767 ? 30000 : port + 1;
      return port;
    },
  };

  private timestamp(): string {
    return this.env
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  private checkSize(obj: KubeObject): ApiError | null {
    const size = Buffer.byteLength(JSON.stringify(obj));
    return size > this.env.maxObjectBytes()
      ? {
          code: 413,
          reason: 'RequestEntityTooLarge',
          message: 'Request entity too large: etcdserver: request is too large',
        }
      : null;
  }

  private checkNamespace(type: ResourceType, namespace: string, kind: string, name: string): ApiError | null {
    if (!type.namespaced) return null;
    const ns = this.store.get(namespaceType, '', namespace);
    if (ns === undefined) return notFound(namespaceType, namespace);
    if (ns.metadata?.deletionTimestamp !== undefined) {
      return {
        code: 403,
        reason: 'Forbidden',
        message: `${kind} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      };
    }
    return null;
  }

  /** Creates an object (POST); 409 when the name exists, 404 when the namespace does not. */
  create(type: ResourceType, namespace: string, body: unknown, options: WriteOptions = {}): ApiResult<KubeObject> {
    const prepared = prepareCreate(type, body, {
      ...this.allocators,
      namespace: type.namespaced ? namespace : '',
      now: this.timestamp(),
      uid: this.env.newUid(),
      nameSuffix: this.env.nameSuffix(),
      ...decodeOptionsOf(options),
    });
    if (!prepared.ok) return prepared;
    const obj = prepared.value;
    const name = obj.metadata?.name ?? '';
    const nsError = this.checkNamespace(type, namespace, type.kind, name);
    if (nsError !== null) return fail(nsError);
    if (this.store.get(type, namespace, name) !== undefined) {
      return fail({
        code: 409,
        reason: 'AlreadyExists',
        message: `${type.group === '' ? type.plural : `${type.plural}.${type.group}`} "${name}" already exists`,
        details: { name, ...(type.group === '' ? {} : { group: type.group }), kind: type.plural },
      });
    }
    const tooLarge = this.checkSize(obj);
    if (tooLarge !== null) return fail(tooLarge);
    if (options.dryRun === true) return ok(obj);
    return ok(this.store.commit(type, 'ADDED', type.namespaced ? namespace : '', name, obj).object);
  }

  /** Replaces an object (PUT, or the result of a patch); 409 on a stale resourceVersion. */
  update(
    type: ResourceType,
    namespace: string,
    name: string,
    body: unknown,
    options: WriteOptions = {},
  ): ApiResult<KubeObject> {
    const ns = type.namespaced ? namespace : '';
    const old = this.store.get(type, ns, name);
    if (old === undefined) return fail(notFound(type, name));
    const wanted =
      isJsonObject(body) && isJsonObject(body['metadata']) ? body['metadata']['resourceVersion'] : undefined;
    if (wanted !== undefined && wanted !== '' && wanted !== old.metadata?.resourceVersion)
      return fail(conflict(type, name));
    const prepared = prepareUpdate(type, old, body, {
      ...this.allocators,
      namespace: ns,
      name,
      subresource: options.subresource ?? '',
      ...decodeOptionsOf(options),
    });
    if (!prepared.ok) return prepared;
    const next = prepared.value;
    if (isNoopUpdate(old, next)) return ok(old);
    const tooLarge = this.checkSize(next);
    if (tooLarge !== null) return fail(tooLarge);
    if (options.dryRun === true) return ok(next);
    const committed = this.store.commit(type, 'MODIFIED', ns, name, next).object;
    const finalizers = committed.metadata?.finalizers ?? [];
    if (committed.metadata?.deletionTimestamp !== undefined && finalizers.length === 0)
      this.store.commit(type, 'DELETED', ns, name, undefined);
    return ok(committed);
  }

  /** Applies a JSON merge, JSON, or strategic merge patch, then updates (conflict if the patch pins an old resourceVersion). */
  patch(
    type: ResourceType,
    namespace: string,
    name: string,
    patchType: PatchType,
    patch: unknown,
    options: WriteOptions = {},
  ): ApiResult<KubeObject> {
    const stored = this.store.get(type, type.namespaced ? namespace : '', name);
    if (stored === undefined) return fail(notFound(type, name));
    // The patch applies to the object as the request's version serves it.
    const current = servedAs(type, stored);
    let patched: JsonObject;
    if (patchType === 'application/json-patch+json') {
      const result = applyJsonPatch(current, patch);
      if (!result.ok) return fail({ code: 422, reason: 'Invalid', message: result.message });
      patched = result.value;
    } else if (!isJsonObject(patch)) {
      return fail(badRequest('the body of the request was in an unknown format'));
    } else {
      patched =
        patchType === 'application/merge-patch+json'
          ? applyJsonMergePatch(current, patch)
          : applyStrategicMergePatch(current, patch, type.kind);
    }
    return this.update(type, namespace, name, patched, options);
  }

  /** Deletes an object: finalizers defer it, namespaces take their contents with them. */
  delete(
    type: ResourceType,
    namespace: string,
    name: string,
    preconditions: DeletePreconditions = {},
    options: WriteOptions = {},
  ): ApiResult<{ object: KubeObject; finished: boolean }> {
    const ns = type.namespaced ? namespace : '';
    const current = this.store.get(type, ns, name);
    if (current === undefined) return fail(notFound(type, name));
    if (preconditions.uid !== undefined && preconditions.uid !== current.metadata?.uid) {
      return fail(
        conflict(
          type,
          name,
          `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${String(current.metadata?.uid)}`,
        ),
      );
    }
    if (
      preconditions.resourceVersion !== undefined &&
      preconditions.resourceVersion !== current.metadata?.resourceVersion
    ) {
      return fail(
        conflict(
          type,
          name,
          `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${String(current.metadata?.resourceVersion)}`,
        ),
      );
    }
    if (options.dryRun === true) return ok({ object: current, finished: true });
    if (type.kind === 'Namespace') return ok(this.deleteNamespace(current, name));
    if ((current.metadata?.finalizers ?? []).length > 0) {
      if (current.metadata?.deletionTimestamp !== undefined) return ok({ object: current, finished: false });
      const marked = {
        ...current,
        metadata: { ...current.metadata, deletionTimestamp: this.timestamp(), deletionGracePeriodSeconds: 0 },
      };
      return ok({ object: this.store.commit(type, 'MODIFIED', ns, name, marked).object, finished: false });
    }
    return ok({ object: this.store.commit(type, 'DELETED', ns, name, undefined).object, finished: true });
  }

  /** Namespace deletion as the namespace controller does it: Terminating, then every object in it, then the namespace. */
  private deleteNamespace(current: KubeObject, name: string): { object: KubeObject; finished: boolean } {
    const status = isJsonObject(current['status']) ? current['status'] : {};
    const terminating = this.store.commit(namespaceType, 'MODIFIED', '', name, {
      ...current,
      metadata: { ...current.metadata, deletionTimestamp: this.timestamp() },
      status: { ...status, phase: 'Terminating' },
    }).object;
    for (const type of resourceTypes) {
      if (!type.namespaced) continue;
      const col = this.store.collection(type);
      const keys = [...col.objects.keys()].filter((k) => k.startsWith(`${name}/`)).sort();
      for (const key of keys) this.store.commit(type, 'DELETED', name, key.slice(name.length + 1), undefined);
    }
    this.store.commit(namespaceType, 'DELETED', '', name, undefined);
    return { object: terminating, finished: false };
  }
}
