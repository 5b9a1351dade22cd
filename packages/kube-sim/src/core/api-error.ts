import { qualifiedResourceOf, type ResourceType } from './resource-types.ts';

/** The `reason` values of metav1.Status the simulator produces. */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'TooManyRequests'
  | 'InternalError'
  | 'Timeout'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'ServiceUnavailable';

/** An API failure as data; rendered as a Kubernetes Status object on the wire. */
export interface ApiError {
  readonly code: number;
  readonly reason: StatusReason;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
  /** Extra Status metadata (the inconsistent continue token of an expired list). */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** Outcome of an API operation: the value, or the error to answer with. */
export type ApiResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ApiError };

/** Wraps a value as a successful ApiResult. */
export function ok<T>(value: T): ApiResult<T> {
  return { ok: true, value };
}

/** Wraps an ApiError as a failed ApiResult. */
export function fail<T = never>(error: ApiError): ApiResult<T> {
  return { ok: false, error };
}

/** Renders an ApiError as a metav1.Status object (what every client parses). */
export function toStatus(error: ApiError): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: { ...error.metadata },
    status: 'Failure',
    message: error.message,
    reason: error.reason,
    ...(error.details === undefined ? {} : { details: error.details }),
    code: error.code,
  };
}

function detailsOf(type: ResourceType, name: string): Record<string, unknown> {
  return { name, ...(type.group === '' ? {} : { group: type.group }), kind: type.plural };
}

/** 404 for a missing object, worded as the API server does. */
export function notFound(type: ResourceType, name: string): ApiError {
  return {
    code: 404,
    reason: 'NotFound',
    message: `${qualifiedResourceOf(type)} "${name}" not found`,
    details: detailsOf(type, name),
  };
}

/** 409 AlreadyExists for a create of an existing name. */
export function alreadyExists(type: ResourceType, name: string): ApiError {
  return {
    code: 409,
    reason: 'AlreadyExists',
    message: `${qualifiedResourceOf(type)} "${name}" already exists`,
    details: detailsOf(type, name),
  };
}

/** 409 Conflict for a write against a stale resourceVersion or failed precondition. */
export function conflict(
  type: ResourceType,
  name: string,
  why = 'the object has been modified; please apply your changes to the latest version and try again',
): ApiError {
  return {
    code: 409,
    reason: 'Conflict',
    message: `Operation cannot be fulfilled on ${qualifiedResourceOf(type)} "${name}": ${why}`,
    details: detailsOf(type, name),
  };
}

/**
 * 422 Invalid with field causes, worded as the API server's: the group-qualified kind, then the one error, or
 * every distinct error in brackets.
 */
export function invalid(
  type: ResourceType,
  name: string,
  causes: readonly { field: string; message: string; reason?: string }[],
): ApiError {
  const texts = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const text = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  const kind = type.group === '' ? type.kind : `${type.kind}.${type.group}`;
  return {
    code: 422,
    reason: 'Invalid',
    message: `${kind} "${name}" is invalid: ${text}`,
    details: {
      ...detailsOf(type, name),
      kind: type.kind,
      causes: causes.map((c) => ({ reason: c.reason ?? 'FieldValueInvalid', message: c.message, field: c.field })),
    },
  };
}

/** 400 BadRequest with a message. */
export function badRequest(message: string): ApiError {
  return { code: 400, reason: 'BadRequest', message };
}

/** 410 Gone (reason Expired) for a watch or list from a compacted resourceVersion. */
export function tooOldResourceVersion(requested: number, oldest: number): ApiError {
  return { code: 410, reason: 'Expired', message: `too old resource version: ${requested} (${oldest})` };
}

/** 504 for a resourceVersion the server has not reached yet. */
export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  return {
    code: 504,
    reason: 'Timeout',
    message: `Too large resource version: ${requested}, current: ${current}`,
    details: {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    },
  };
}
