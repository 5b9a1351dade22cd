import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiError, type ApiResult, badRequest } from '../core/api-error.ts';
import { isJsonObject } from '../core/json-value.ts';
import { contentTypeOf, type ResponseFormat } from '../core/media-type.ts';
import { authorize, forbidden, requestAttributes, type UserInfo } from '../core/rbac-authorizer.ts';
import { parseCollectionQuery, type CollectionQuery } from '../core/request-query.ts';
import type { FieldValidation } from '../core/custom-resources.ts';
import { apiVersionOf, servedAs, type KubeObject, type ResourceType } from '../core/resource-types.ts';
import { toPartialObjectMetadata, toTable } from '../core/table.ts';
import type { ObjectStore, ListResult } from '../store/object-store.ts';
import type { ObjectWriter, PatchType } from '../store/object-writer.ts';
import type { ApiVerb, FaultController } from './fault-controller.ts';
import { parseJsonBody, readBody, sendError, sendJson } from './http-io.ts';
import { rbacPolicyOf } from './rbac-policy.ts';
import { WatchStream } from './watch-stream.ts';

/** What resource requests need from the running simulator. */
export interface ResourceContext {
  readonly store: ObjectStore;
  readonly writer: ObjectWriter;
  readonly faults: FaultController;
  readonly bookmarkIntervalMs: number;
  /** Watches without timeoutSeconds end at a random point in [min, 2·min) seconds, like --min-request-timeout. */
  readonly minRequestTimeoutSeconds: number;
  nowMs(): number;
}

/** A request addressed to one resource type (and maybe one object). */
export interface ResourceRequest {
  readonly type: ResourceType;
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  readonly url: URL;
  readonly format: ResponseFormat;
  /** Who asks; null for the admin token, which RBAC does not restrict. */
  readonly user: UserInfo | null;
}

const patchTypes: readonly string[] = [
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
];

/** Custom resources take no strategic merge patch: the CRD handler lists the others, in its order. */
const customPatchTypes: readonly string[] = ['application/json-patch+json', 'application/merge-patch+json'];

function verbOf(method: string, r: ResourceRequest): ApiVerb | null {
  const watch = r.url.searchParams.get('watch');
  switch (method) {
    case 'GET':
      return r.name !== '' ? 'get' : watch === 'true' || watch === '1' ? 'watch' : 'list';
    case 'POST':
      return r.name === '' ? 'create' : null;
    case 'PUT':
      return r.name !== '' ? 'update' : null;
    case 'PATCH':
      return r.name !== '' ? 'patch' : null;
    case 'DELETE':
      return r.name !== '' ? 'delete' : 'deletecollection';
    default:
      return null;
  }
}

function stripTypeMeta(obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

function listBody(ctx: ResourceContext, r: ResourceRequest, q: CollectionQuery, result: ListResult): unknown {
  const metadata = {
    resourceVersion: result.resourceVersion,
    ...(result.continue === undefined ? {} : { continue: result.continue }),
    ...(result.remainingItemCount === undefined ? {} : { remainingItemCount: result.remainingItemCount }),
  };
  if (r.format === 'table')
    return toTable(r.type, result.items, { nowMs: ctx.nowMs(), includeObject: q.includeObject, listMeta: metadata });
  if (r.format === 'partial-metadata')
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata,
      items: result.items.map(toPartialObjectMetadata),
    };
  return {
    kind: `${r.type.kind}List`,
    apiVersion: apiVersionOf(r.type),
    metadata,
    items: result.items.map(stripTypeMeta),
  };
}

function objectBody(ctx: ResourceContext, r: ResourceRequest, obj: KubeObject): unknown {
  if (r.format === 'table')
    return toTable(r.type, [obj], {
      nowMs: ctx.nowMs(),
      includeObject: 'Metadata',
      listMeta: { resourceVersion: obj.metadata?.resourceVersion ?? '' },
    });
  return r.format === 'partial-metadata' ? toPartialObjectMetadata(obj) : servedAs(r.type, obj);
}

/** The Warning header of a response (several warnings in one header, comma-separated, as RFC 7234 allows). */
function warningHeaders(warnings: readonly string[]): Record<string, string> {
  return warnings.length === 0 ? {} : { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}

function sendResult(
  ctx: ResourceContext,
  res: ServerResponse,
  r: ResourceRequest,
  result: ApiResult<KubeObject>,
  status: number,
  warnings: readonly string[] = [],
): void {
  if (!result.ok) sendError(res, result.error, warningHeaders(warnings));
  else sendJson(res, status, objectBody(ctx, r, result.value), contentTypeOf(r.format), warningHeaders(warnings));
}

function fieldValidationOf(url: URL): FieldValidation | undefined {
  const value = url.searchParams.get('fieldValidation');
  return value === 'Ignore' || value === 'Warn' || value === 'Strict' ? value : undefined;
}

function startWatch(ctx: ResourceContext, res: ServerResponse, r: ResourceRequest, q: CollectionQuery): void {
  const timeoutSeconds = q.timeoutSeconds ?? ctx.minRequestTimeoutSeconds * (1 + Math.random());
  const stream = new WatchStream(res, {
    type: r.type,
    namespace: r.namespace,
    labels: q.labels,
    fields: q.fields,
    format: r.format === 'table' ? 'table' : 'json',
    includeObject: q.includeObject,
    allowBookmarks: q.allowWatchBookmarks,
    bookmarkIntervalMs: ctx.bookmarkIntervalMs,
    timeoutMs: timeoutSeconds * 1000,
    nowMs: () => ctx.nowMs(),
    currentRv: () => ctx.store.resourceVersion,
    onClose: (s) => ctx.faults.untrack(s),
  });
  const resourceVersion = q.sendInitialEvents ? '' : q.resourceVersion;
  const subscribed = ctx.store.watch(
    r.type,
    { namespace: r.namespace, labels: q.labels, fields: q.fields, resourceVersion },
    stream,
  );
  if (!subscribed.ok && subscribed.error.code !== 410) {
    stream.abandon();
    sendError(res, subscribed.error);
    return;
  }
  ctx.faults.track(stream);
  stream.start(ctx.faults.watchesStalled);
  if (!subscribed.ok) {
    stream.sendError(subscribed.error, true);
    return;
  }
  stream.attach(subscribed.value);
  if (q.sendInitialEvents && q.allowWatchBookmarks) stream.sendBookmark({ 'k8s.io/initial-events-end': 'true' });
}

function handleCollectionGet(ctx: ResourceContext, res: ServerResponse, r: ResourceRequest): void {
  const q = parseCollectionQuery(r.url.searchParams, r.type, r.namespace);
  if ('code' in q) return sendError(res, q);
  if (q.watch) return startWatch(ctx, res, r, q);
  const result = ctx.store.list(r.type, { ...q, namespace: r.namespace });
  if (!result.ok) return sendError(res, result.error);
  sendJson(res, 200, listBody(ctx, r, q, result.value), contentTypeOf(r.format));
}

function deleteStatus(r: ResourceRequest, obj: KubeObject): unknown {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: {
      name: r.name,
      ...(r.type.group === '' ? {} : { group: r.type.group }),
      kind: r.type.plural,
      uid: obj.metadata?.uid,
    },
  };
}

function handleDelete(
  ctx: ResourceContext,
  res: ServerResponse,
  r: ResourceRequest,
  body: unknown,
  dryRun: boolean,
): void {
  const pre = isJsonObject(body) && isJsonObject(body['preconditions']) ? body['preconditions'] : {};
  const preconditions = {
    ...(typeof pre['uid'] === 'string' ? { uid: pre['uid'] } : {}),
    ...(typeof pre['resourceVersion'] === 'string' ? { resourceVersion: pre['resourceVersion'] } : {}),
  };
  const result = ctx.writer.delete(r.type, r.namespace, r.name, preconditions, { dryRun });
  if (!result.ok) return sendError(res, result.error);
  const { object, finished } = result.value;
  if (finished && r.type.kind !== 'Namespace') sendJson(res, 200, deleteStatus(r, object));
  else sendJson(res, 200, objectBody(ctx, r, object), contentTypeOf(r.format));
}

function handleDeleteCollection(ctx: ResourceContext, res: ServerResponse, r: ResourceRequest): void {
  const q = parseCollectionQuery(r.url.searchParams, r.type, r.namespace);
  if ('code' in q) return sendError(res, q);
  const listed = ctx.store.list(r.type, { namespace: r.namespace, labels: q.labels, fields: q.fields });
  if (!listed.ok) return sendError(res, listed.error);
  const deleted: KubeObject[] = [];
  for (const obj of listed.value.items) {
    const result = ctx.writer.delete(r.type, obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');
    if (result.ok) deleted.push(result.value.object);
  }
  sendJson(res, 200, {
    kind: `${r.type.kind}List`,
    apiVersion: apiVersionOf(r.type),
    metadata: { resourceVersion: String(ctx.store.resourceVersion) },
    items: deleted.map(stripTypeMeta),
  });
}

function checkSubresource(r: ResourceRequest, verb: ApiVerb): ApiError | null {
  if (r.subresource === '') return null;
  if (r.subresource === 'status' && r.type.hasStatus && (verb === 'get' || verb === 'update' || verb === 'patch'))
    return null;
  return { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' };
}

/** Serves one request to a resource: get, list, watch, create, update, patch, delete, deletecollection. */
export async function handleResourceRequest(
  ctx: ResourceContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: ResourceRequest,
): Promise<void> {
  const verb = verbOf(req.method ?? 'GET', r);
  if (verb === null)
    return sendError(res, {
      code: 405,
      reason: 'MethodNotAllowed',
      message: `the server does not allow this method on the requested resource`,
    });
  // Like the API server's filter chain: authorization comes before anything the handler itself would refuse.
  if (r.user !== null) {
    const attributes = requestAttributes(
      verb,
      { ...r, group: r.type.group, plural: r.type.plural },
      r.url.searchParams,
    );
    const decision = authorize(r.user, attributes, rbacPolicyOf(ctx.store));
    if (!decision.allowed) return sendError(res, forbidden(r.user, attributes, decision.reason));
  }
  const refused = refusal(ctx, r, verb);
  if (refused !== null) return sendError(res, refused.error, refused.headers);
  if (verb === 'get') return handleGet(ctx, res, r);
  if (verb === 'list' || verb === 'watch') return handleCollectionGet(ctx, res, r);
  if (verb === 'deletecollection') return handleDeleteCollection(ctx, res, r);
  return handleWrite(ctx, req, res, r, verb);
}

/**
 * Why the request is answered with an error before its verb runs, in the API server's order: the path (a
 * namespaced name without a namespace, an unknown subresource), then an injected fault, then the media type.
 */
function refusal(
  ctx: ResourceContext,
  r: ResourceRequest,
  verb: ApiVerb,
): { error: ApiError; headers: Record<string, string> } | null {
  if (r.type.namespaced && r.namespace === '' && verb !== 'list' && verb !== 'watch')
    return {
      error: { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' },
      headers: {},
    };
  const badSub = checkSubresource(r, verb);
  if (badSub !== null) return { error: badSub, headers: {} };
  const injected = ctx.faults.takeFailure(r.type, verb, r.namespace);
  if (injected !== null)
    return {
      error: injected.error,
      headers: injected.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(injected.retryAfterSeconds) },
    };
  if (r.format === 'not-acceptable')
    return {
      error: {
        code: 406,
        reason: 'NotAcceptable',
        message: 'only the following media types are accepted: application/json',
      },
      headers: {},
    };
  return null;
}

function handleGet(ctx: ResourceContext, res: ServerResponse, r: ResourceRequest): void {
  const obj = ctx.store.get(r.type, r.namespace, r.name);
  if (obj !== undefined) return sendJson(res, 200, objectBody(ctx, r, obj), contentTypeOf(r.format));
  sendError(res, {
    code: 404,
    reason: 'NotFound',
    message: `${r.type.group === '' ? r.type.plural : `${r.type.plural}.${r.type.group}`} "${r.name}" not found`,
    details: { name: r.name, ...(r.type.group === '' ? {} : { group: r.type.group }), kind: r.type.plural },
  });
}

/** create, update, patch and delete: the verbs with a request body. */
async function handleWrite(
  ctx: ResourceContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: ResourceRequest,
  verb: ApiVerb,
): Promise<void> {
  const raw = await readBody(req);
  if (!raw.ok) return sendError(res, raw.error);
  const body = parseJsonBody(raw.text);
  if (!body.ok) return sendError(res, body.error);
  const dryRun = r.url.searchParams.get('dryRun') === 'All';
  const subresource = r.subresource === 'status' ? 'status' : '';
  const warnings: string[] = [];
  const fieldValidation = fieldValidationOf(r.url);
  const options = {
    dryRun,
    subresource,
    warnings,
    ...(fieldValidation === undefined ? {} : { fieldValidation }),
  } as const;
  switch (verb) {
    case 'create':
      return sendResult(ctx, res, r, ctx.writer.create(r.type, r.namespace, body.value, options), 201, warnings);
    case 'update':
      return sendResult(
        ctx,
        res,
        r,
        ctx.writer.update(r.type, r.namespace, r.name, body.value, options),
        200,
        warnings,
      );
    case 'patch': {
      const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
      const accepted = r.type.custom ? customPatchTypes : patchTypes;
      if (!accepted.includes(contentType)) {
        return sendError(res, {
          code: 415,
          reason: 'UnsupportedMediaType',
          message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
        });
      }
      if (body.value === undefined) return sendError(res, badRequest('the body of the request was empty'));
      const patchType = contentType as PatchType;
      const result = ctx.writer.patch(r.type, r.namespace, r.name, patchType, body.value, options);
      return sendResult(ctx, res, r, result, 200, warnings);
    }
    case 'delete':
      return handleDelete(ctx, res, r, body.value, dryRun);
  }
}
