import { badRequest, conflict, invalid, type ApiError, type ApiResult, fail, ok } from './api-error.ts';
import { cloneJson, isJsonObject, jsonEqual } from './json-value.ts';
import {
  defaultService,
  normalizeEndpointSlice,
  normalizeSecret,
  validateConfigMap,
  validateIngress,
  type FieldProblem,
  type ServiceAllocators,
} from './kind-rules.ts';
import { normalizeCustomResource, type FieldValidation } from './custom-resources.ts';
import { checkLabelName, checkPathSegmentName, checkSubdomainName } from './object-names.ts';
import {
  apiVersionOf,
  rbacGroup,
  storageTypeOf,
  type KubeObject,
  type ObjectMeta,
  type ResourceType,
} from './resource-types.ts';

/** How a write treats fields its schema does not declare (custom resources only), and where warnings go. */
export interface DecodeOptions {
  /** The request's fieldValidation; the API server's default is Warn. */
  readonly fieldValidation?: FieldValidation;
  /** Receives the warnings the response carries in Warning headers. */
  readonly warnings?: string[];
}

/** What a create needs from the shell: the time, a fresh uid, a name suffix and the Service allocators. */
export interface CreateContext extends ServiceAllocators, DecodeOptions {
  readonly namespace: string;
  readonly now: string;
  readonly uid: string;
  readonly nameSuffix: string;
}

/** What an update needs from the shell: the URL's namespace and name, the subresource, and the allocators. */
export interface UpdateContext extends ServiceAllocators, DecodeOptions {
  readonly namespace: string;
  readonly name: string;
  readonly subresource: 'status' | '';
}

function checkTypeMeta(type: ResourceType, obj: KubeObject): ApiError | null {
  const apiVersion = apiVersionOf(type);
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    return badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`,
    );
  }
  if (obj.kind !== undefined && obj.kind !== type.kind) {
    return badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${type.kind})`);
  }
  return null;
}

function kindProblems(
  type: ResourceType,
  obj: KubeObject,
  old: KubeObject | undefined,
  alloc: ServiceAllocators,
): FieldProblem[] {
  switch (type.kind) {
    case 'Service':
      defaultService(obj, old, alloc);
      return [];
    case 'Secret': {
      const problems = normalizeSecret(obj);
      if (old !== undefined && old['type'] !== obj['type'])
        problems.push({ field: 'type', message: 'Invalid value: field is immutable' });
      return problems;
    }
    case 'ConfigMap':
      return validateConfigMap(obj);
    case 'Ingress':
      return validateIngress(obj);
    case 'EndpointSlice':
      return normalizeEndpointSlice(obj);
    default:
      return [];
  }
}

function defaultNamespace(obj: KubeObject, meta: ObjectMeta): void {
  meta.labels = { ...meta.labels, 'kubernetes.io/metadata.name': meta.name ?? '' };
  const spec = isJsonObject(obj['spec']) ? obj['spec'] : {};
  obj['spec'] = { finalizers: ['kubernetes'], ...spec };
  const status = isJsonObject(obj['status']) ? obj['status'] : {};
  obj['status'] = { ...status, phase: status['phase'] ?? 'Active' };
}

function resetStatusOnCreate(type: ResourceType, obj: KubeObject): void {
  if (type.kind === 'Ingress' || type.kind === 'Service') obj['status'] = { loadBalancer: {} };
  // A custom resource with a status subresource is created without status (its schema may default one).
  else if (type.custom && type.hasStatus) delete obj['status'];
}

/**
 * Prunes, defaults and validates a custom resource in place, as the CRD handler decodes and validates it: unknown
 * fields are a 400 under Strict and a warning under Warn; then any schema or rule failure is the 422.
 */
function customResourceError(
  type: ResourceType,
  obj: KubeObject,
  old: KubeObject | undefined,
  options: DecodeOptions,
): ApiError | null {
  const { problems, unknownFields } = normalizeCustomResource(type, obj, old);
  const unknown = unknownFields.map((f) => `unknown field "${f}"`);
  const mode = options.fieldValidation ?? 'Warn';
  if (mode === 'Strict' && unknown.length > 0)
    return badRequest(
      `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ${unknown.join(', ')}`,
    );
  if (mode === 'Warn') options.warnings?.push(...unknown);
  return problems.length > 0 ? invalid(type, obj.metadata?.name ?? '', problems) : null;
}

function checkName(type: ResourceType, name: string): string | null {
  if (type.kind === 'Namespace') return checkLabelName(name);
  // RBAC names are path segments (`system:discovery`), as the API server validates them.
  return type.group === rbacGroup ? checkPathSegmentName(name) : checkSubdomainName(name);
}

/** Builds the object a create stores: type meta, identity, timestamps, defaults; or the 4xx to answer. */
export function prepareCreate(type: ResourceType, input: unknown, ctx: CreateContext): ApiResult<KubeObject> {
  if (!isJsonObject(input)) return fail(badRequest('the body of the request was in an unknown format'));
  const obj = cloneJson(input) as KubeObject;
  const typeError = checkTypeMeta(type, obj);
  if (typeError !== null) return fail(typeError);
  const meta: ObjectMeta = isJsonObject(obj.metadata) ? obj.metadata : {};
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '')
    return fail(badRequest('resourceVersion should not be set on objects to be created'));
  if (
    (meta.name === undefined || meta.name === '') &&
    typeof meta.generateName === 'string' &&
    meta.generateName !== ''
  )
    meta.name = meta.generateName + ctx.nameSuffix;
  const name = meta.name ?? '';
  if (name === '')
    return fail(
      invalid(type, '', [{ field: 'metadata.name', message: 'Required value: name or generateName is required' }]),
    );
  const badName = checkName(type, name);
  if (badName !== null)
    return fail(invalid(type, name, [{ field: 'metadata.name', message: `Invalid value: "${name}": ${badName}` }]));
  if (type.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== ctx.namespace) {
      return fail(badRequest('the namespace of the provided object does not match the namespace sent on the request'));
    }
    meta.namespace = ctx.namespace;
  } else delete meta.namespace;
  Object.assign(meta, { uid: ctx.uid, creationTimestamp: ctx.now });
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  if (type.generation !== 'none') meta.generation = 1;
  else delete meta.generation;
  obj.apiVersion = apiVersionOf(type);
  obj.kind = type.kind;
  obj.metadata = meta;
  if (type.kind === 'Namespace') defaultNamespace(obj, meta);
  resetStatusOnCreate(type, obj);
  const customError = type.custom ? customResourceError(type, obj, undefined, ctx) : null;
  if (customError !== null) return fail(customError);
  const problems = kindProblems(type, obj, undefined, ctx);
  // Every version of a kind is stored as its storage version.
  obj.apiVersion = apiVersionOf(storageTypeOf(type));
  return problems.length > 0 ? fail(invalid(type, name, problems)) : ok(obj);
}

function withoutKeys(obj: KubeObject, keys: readonly string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...obj };
  for (const k of keys) delete copy[k];
  return copy;
}

function nextGeneration(type: ResourceType, old: KubeObject, next: KubeObject): number | undefined {
  const current = old.metadata?.generation;
  if (type.generation === 'none' || current === undefined) return current;
  const changed =
    type.generation === 'spec'
      ? !jsonEqual(old['spec'], next['spec'])
      : !jsonEqual(withoutKeys(old, ['metadata', 'status']), withoutKeys(next, ['metadata', 'status']));
  return changed ? current + 1 : current;
}

function mergeStatusRules(
  type: ResourceType,
  old: KubeObject,
  obj: KubeObject,
  subresource: 'status' | '',
): KubeObject {
  if (!type.hasStatus) return obj;
  if (subresource === 'status') return { ...cloneJson(old), status: obj['status'] };
  const next: KubeObject = { ...obj };
  if (old['status'] === undefined) delete next['status'];
  else next['status'] = cloneJson(old['status']);
  return next;
}

/** Builds the object an update (PUT, or a patch result) stores: immutables kept, status rules, generation; or the 4xx. */
export function prepareUpdate(
  type: ResourceType,
  old: KubeObject,
  input: unknown,
  ctx: UpdateContext,
): ApiResult<KubeObject> {
  if (!isJsonObject(input)) return fail(badRequest('the body of the request was in an unknown format'));
  const typeError = checkTypeMeta(type, input as KubeObject);
  if (typeError !== null) return fail(typeError);
  const raw = cloneJson(input) as KubeObject;
  const meta: ObjectMeta = isJsonObject(raw.metadata) ? raw.metadata : {};
  if (meta.name !== undefined && meta.name !== ctx.name)
    return fail(badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${ctx.name})`));
  if (type.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== ctx.namespace) {
    return fail(badRequest('the namespace of the provided object does not match the namespace sent on the request'));
  }
  const oldMeta = old.metadata ?? {};
  if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== oldMeta.uid) {
    return fail(
      conflict(
        type,
        ctx.name,
        `Precondition failed: UID in precondition: ${String(meta.uid)}, UID in object meta: ${String(oldMeta.uid)}`,
      ),
    );
  }
  raw.metadata = { ...meta, name: ctx.name, uid: oldMeta.uid, creationTimestamp: oldMeta.creationTimestamp };
  if (type.namespaced) raw.metadata.namespace = ctx.namespace;
  else delete raw.metadata.namespace;
  const target: Record<string, unknown> = raw.metadata;
  for (const key of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
    if (oldMeta[key] === undefined) delete target[key];
    else target[key] = oldMeta[key];
  }
  const obj = mergeStatusRules(type, old, { ...raw, apiVersion: apiVersionOf(type), kind: type.kind }, ctx.subresource);
  // A custom resource is validated whole on status writes too; built-in kinds' status writes skip spec rules.
  const customError = type.custom ? customResourceError(type, obj, old, ctx) : null;
  if (customError !== null) return fail(customError);
  const problems = ctx.subresource === 'status' ? [] : kindProblems(type, obj, old, ctx);
  if (problems.length > 0) return fail(invalid(type, ctx.name, problems));
  obj.apiVersion = apiVersionOf(storageTypeOf(type));
  const generation = nextGeneration(type, old, obj);
  if (generation !== undefined && obj.metadata !== undefined) obj.metadata = { ...obj.metadata, generation };
  return ok(obj);
}

/** True when an update would store nothing new (the API server then skips the write: no new resourceVersion, no event). */
export function isNoopUpdate(old: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject): unknown => ({
    ...o,
    metadata: { ...o.metadata, resourceVersion: undefined, managedFields: undefined },
  });
  return jsonEqual(strip(old), strip(next));
}
