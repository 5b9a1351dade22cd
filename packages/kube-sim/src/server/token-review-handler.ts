import type { IncomingMessage, ServerResponse } from 'node:http';
import { negotiateFormat } from '../core/media-type.ts';
import { authorize, forbidden, requestAttributes, type UserInfo } from '../core/rbac-authorizer.ts';
import type { ResourceType } from '../core/resource-types.ts';
import { answerTokenReview, type UnknownFieldPolicy } from '../core/token-review.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { BearerAuthenticator } from './bearer-authenticator.ts';
import { parseJsonBody, readBody, sendError, sendJson } from './http-io.ts';
import { rbacPolicyOf } from './rbac-policy.ts';

/** What a TokenReview needs from the running simulator. */
export interface TokenReviewContext {
  readonly store: ObjectStore;
  readonly authenticator: BearerAuthenticator;
}

function fieldValidationOf(url: URL): UnknownFieldPolicy {
  const value = url.searchParams.get('fieldValidation');
  return value === 'Ignore' || value === 'Strict' ? value : 'Warn';
}

/**
 * `POST /apis/authentication.k8s.io/v1/tokenreviews`: authorized like any create (RBAC `create tokenreviews`
 * for a non-admin caller), answered 201 and never stored. Any other method on the collection is 405, as the API
 * server's router answers a path it only serves for POST.
 */
export async function handleTokenReview(
  ctx: TokenReviewContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: { readonly type: ResourceType; readonly url: URL; readonly user: UserInfo | null },
): Promise<void> {
  if (req.method !== 'POST')
    return sendError(res, {
      code: 405,
      reason: 'MethodNotAllowed',
      message: 'the server does not allow this method on the requested resource',
    });
  if (r.user !== null) {
    const target = { group: r.type.group, plural: r.type.plural, namespace: '', name: '', subresource: '' };
    const attributes = requestAttributes('create', target, r.url.searchParams);
    const decision = authorize(r.user, attributes, rbacPolicyOf(ctx.store));
    if (!decision.allowed) return sendError(res, forbidden(r.user, attributes, decision.reason));
  }
  if (negotiateFormat(req.headers.accept) === 'not-acceptable')
    return sendError(res, {
      code: 406,
      reason: 'NotAcceptable',
      message: 'only the following media types are accepted: application/json',
    });
  const raw = await readBody(req);
  if (!raw.ok) return sendError(res, raw.error);
  const body = parseJsonBody(raw.text);
  if (!body.ok) return sendError(res, body.error);
  const answer = answerTokenReview(body.value, (token) => ctx.authenticator.userOf(token), fieldValidationOf(r.url));
  if (!answer.ok) return sendError(res, answer.error);
  const { review, warnings } = answer.value;
  const headers: Record<string, string> =
    warnings.length === 0 ? {} : { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
  sendJson(res, 201, review, 'application/json', headers);
}
