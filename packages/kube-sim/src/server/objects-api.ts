import { PortolanError } from '@portolan/errors';
import type { ApiError, ApiResult } from '../core/api-error.ts';
import { findResourceTypeByKind, servedAs, type KubeObject, type ResourceType } from '../core/resource-types.ts';
import { cloneJson } from '../core/json-value.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { ObjectWriter, PatchType } from '../store/object-writer.ts';

/** Names one object: its apiVersion, kind, namespace (omit for cluster-scoped) and name. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

/** The simulator refused a write or read made through the library API (the Status it would have answered). */
export class KubeSimRejectedError extends PortolanError {
  readonly code = 'KUBE_SIM_REJECTED';
  readonly status: ApiError;
  constructor(status: ApiError) {
    super(`${status.code} ${status.reason}: ${status.message}`);
    this.status = status;
  }
}

/** Thrown when an object names an apiVersion/kind the simulator does not serve. */
export class UnknownKindError extends PortolanError {
  readonly code = 'KUBE_SIM_UNKNOWN_KIND';
  constructor(apiVersion: string, kind: string) {
    super(`the simulator does not serve ${apiVersion} ${kind}`);
  }
}

function typeOf(apiVersion: string | undefined, kind: string | undefined): ResourceType {
  const type = findResourceTypeByKind(apiVersion ?? '', kind ?? '');
  if (type === undefined) throw new UnknownKindError(apiVersion ?? '', kind ?? '');
  return type;
}

function unwrap<T>(result: ApiResult<T>): T {
  if (!result.ok) throw new KubeSimRejectedError(result.error);
  return cloneJson(result.value);
}

/** The object of a write, in the version the caller named (the store keeps a kind's storage version). */
function unwrapAs(type: ResourceType, result: ApiResult<KubeObject>): KubeObject {
  return servedAs(type, unwrap(result));
}

/**
 * Direct object access for tests and `portolan up`: the same semantics (and change log, and watch events)
 * as requests through the API, without HTTP. Failures throw KubeSimRejectedError with the Status.
 */
export class ObjectsApi {
  private readonly store: ObjectStore;
  private readonly writer: ObjectWriter;

  constructor(store: ObjectStore, writer: ObjectWriter) {
    this.store = store;
    this.writer = writer;
  }

  /** Creates an object (apiVersion and kind pick the resource). */
  create(obj: KubeObject): KubeObject {
    const type = typeOf(obj.apiVersion, obj.kind);
    return unwrapAs(type, this.writer.create(type, obj.metadata?.namespace ?? 'default', obj));
  }

  /** Replaces an object (a resourceVersion in it is checked: 409 when stale). */
  update(obj: KubeObject): KubeObject {
    const type = typeOf(obj.apiVersion, obj.kind);
    return unwrapAs(
      type,
      this.writer.update(type, obj.metadata?.namespace ?? 'default', obj.metadata?.name ?? '', obj),
    );
  }

  /** Replaces only the status of an object (the /status subresource). */
  updateStatus(obj: KubeObject): KubeObject {
    const type = typeOf(obj.apiVersion, obj.kind);
    const namespace = obj.metadata?.namespace ?? 'default';
    return unwrapAs(
      type,
      this.writer.update(type, namespace, obj.metadata?.name ?? '', obj, { subresource: 'status' }),
    );
  }

  /** Creates the object, or replaces it when it exists (ignoring any resourceVersion in it). */
  apply(obj: KubeObject): KubeObject {
    const type = typeOf(obj.apiVersion, obj.kind);
    const namespace = obj.metadata?.namespace ?? 'default';
    const exists = this.store.get(type, namespace, obj.metadata?.name ?? '') !== undefined;
    if (!exists) return this.create(obj);
    return this.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } });
  }

  /** Patches an object with a merge, JSON or strategic merge patch. */
  patch(ref: ObjectRef, patchType: PatchType, patch: unknown): KubeObject {
    const type = typeOf(ref.apiVersion, ref.kind);
    return unwrapAs(type, this.writer.patch(type, ref.namespace ?? '', ref.name, patchType, patch));
  }

  /** Deletes an object (namespaces take their contents; finalizers defer). */
  delete(ref: ObjectRef): KubeObject {
    return unwrap(this.writer.delete(typeOf(ref.apiVersion, ref.kind), ref.namespace ?? '', ref.name)).object;
  }

  /** The current object, or undefined. */
  get(ref: ObjectRef): KubeObject | undefined {
    const type = typeOf(ref.apiVersion, ref.kind);
    const obj = this.store.get(type, ref.namespace ?? '', ref.name);
    return obj === undefined ? undefined : servedAs(type, cloneJson(obj));
  }

  /** All current objects of a kind (in one namespace, or all), in key order. */
  list(apiVersion: string, kind: string, namespace = ''): KubeObject[] {
    const type = typeOf(apiVersion, kind);
    return unwrap(this.store.list(type, { namespace, labels: [], fields: [] })).items.map((o) => servedAs(type, o));
  }
}
