// TokenReview (authentication.k8s.io/v1) as the API server's registry answers it: the request body is decoded,
// the token run through the same authenticators as a request's bearer token, and the review returned with its
// status filled in. Nothing is stored.
import { badRequest, fail, ok, type ApiResult } from './api-error.ts';
import { acceptedAudiences } from './authentication.ts';
import { isJsonObject, type JsonObject } from './json-value.ts';
import type { UserInfo } from './rbac-authorizer.ts';

/** How the request asks unknown fields to be treated (`fieldValidation`; the API server's default is Warn). */
export type UnknownFieldPolicy = 'Ignore' | 'Warn' | 'Strict';

/** The answered review and the Warning texts of the response. */
export interface TokenReviewAnswer {
  readonly review: JsonObject;
  readonly warnings: readonly string[];
}

const apiVersion = 'authentication.k8s.io/v1';
const cannotHandle = 'TokenReview in version "v1" cannot be handled as a TokenReview';
const knownFields: Readonly<Record<string, readonly string[]>> = {
  '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
  spec: ['token', 'audiences'],
};

/** The name Go's encoding/json gives a JSON value's type in its unmarshal errors. */
function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (isJsonObject(value)) return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** The decode error of a field holding the wrong JSON type, worded as the API server's JSON decoder words it. */
function typeError(field: string, value: unknown, goType: string): ApiResult<never> {
  const where = field.startsWith('spec.') ? `TokenReviewSpec.${field}` : `TokenReview.${field}`;
  return fail(
    badRequest(
      `${cannotHandle}: json: cannot unmarshal ${jsonTypeOf(value)} into Go struct field ${where} of type ${goType}`,
    ),
  );
}

function unknownFields(body: JsonObject, spec: JsonObject): string[] {
  const extra = (obj: JsonObject, at: string) =>
    Object.keys(obj)
      .filter((k) => !(knownFields[at] ?? []).includes(k))
      .map((k) => `unknown field "${at === '' ? k : `${at}.${k}`}"`);
  return [...extra(body, ''), ...extra(spec, 'spec')];
}

type Decoded = { readonly metadata: JsonObject; readonly spec: JsonObject; readonly token: string };

/** Decodes the body; a JSON null leaves a field at its zero value, as in Go. */
function decode(body: unknown): ApiResult<Decoded> {
  if (!isJsonObject(body)) return fail(badRequest(`${cannotHandle}: the body must be a JSON object`));
  for (const [field, wanted] of [
    ['apiVersion', apiVersion],
    ['kind', 'TokenReview'],
  ] as const)
    if (body[field] !== undefined && body[field] !== wanted) {
      const what = field === 'kind' ? 'kind' : 'API version';
      return fail(
        badRequest(`the ${what} in the data (${String(body[field])}) does not match the expected ${what} (${wanted})`),
      );
    }
  const metadata = body['metadata'] ?? {};
  if (!isJsonObject(metadata)) return typeError('metadata', metadata, 'v1.ObjectMeta');
  const spec = body['spec'] ?? {};
  if (!isJsonObject(spec)) return typeError('spec', spec, 'v1.TokenReviewSpec');
  const token = spec['token'] ?? '';
  if (typeof token !== 'string') return typeError('spec.token', token, 'string');
  const audiences = spec['audiences'] ?? [];
  if (!Array.isArray(audiences)) return typeError('spec.audiences', audiences, '[]string');
  const bad = audiences.find((a) => a !== null && typeof a !== 'string');
  if (bad !== undefined) return typeError('spec.audiences', bad, 'string');
  return ok({ metadata, spec, token });
}

function audiencesOf(spec: JsonObject): string[] {
  const audiences = spec['audiences'];
  return Array.isArray(audiences) ? audiences.map((a) => (typeof a === 'string' ? a : '')) : [];
}

/** The review's status: the user and the audiences it was accepted for, or the bearer authenticator's error. */
function statusOf(user: UserInfo | undefined, requested: readonly string[]): JsonObject {
  const audiences = acceptedAudiences(requested);
  // The token authenticators refuse a token for an audience the API server does not serve, like an unknown one.
  if (user === undefined || audiences.length === 0) return { user: {}, error: 'invalid bearer token' };
  const userInfo = {
    username: user.name,
    ...(user.uid === undefined || user.uid === '' ? {} : { uid: user.uid }),
    ...(user.groups.length === 0 ? {} : { groups: user.groups }),
  };
  return { authenticated: true, user: userInfo, audiences };
}

/**
 * Answers a TokenReview request body: the review as sent (its namespace dropped: the kind is cluster-scoped) with
 * its status, or the 400 for a body that does not decode or has no token. `authenticated: false` is omitted, as
 * the API server's JSON leaves out a false `omitempty` field.
 */
export function answerTokenReview(
  body: unknown,
  authenticate: (token: string) => UserInfo | undefined,
  fieldValidation: UnknownFieldPolicy = 'Warn',
): ApiResult<TokenReviewAnswer> {
  const decoded = decode(body);
  if (!decoded.ok) return decoded;
  const { metadata, spec, token } = decoded.value;
  const unknown = unknownFields(body as JsonObject, spec);
  if (fieldValidation === 'Strict' && unknown.length > 0)
    return fail(badRequest(`${cannotHandle}: strict decoding error: ${unknown.join(', ')}`));
  if (token === '') return fail(badRequest('token is required for TokenReview in authentication'));
  const requested = audiencesOf(spec);
  const { namespace: _namespace, ...meta } = metadata;
  const review = {
    kind: 'TokenReview',
    apiVersion,
    metadata: { ...meta, creationTimestamp: null },
    spec: { token, ...(requested.length === 0 ? {} : { audiences: requested }) },
    status: statusOf(authenticate(token), requested),
  };
  return ok({ review, warnings: fieldValidation === 'Warn' ? unknown : [] });
}
