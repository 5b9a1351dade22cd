import { AuthenticationV1Api, KubeConfig } from '@kubernetes/client-node';
import { errorMessage, PortolanError } from '@portolan/errors';
import { roleFromGroups, type Identity } from '../core/identity.ts';
import { hashToken } from './static-tokens.ts';

/** The cluster that reviews tokens could not be asked (unreachable, refused the console's own credentials). */
export class TokenReviewError extends PortolanError {
  readonly code = 'TOKEN_REVIEW_FAILED';
}

/** Where to send TokenReviews and which groups get which role. */
export interface TokenReviewOptions {
  /** A kubeconfig (with `context`), or null for the pod's service account. */
  readonly kubeconfig: string | null;
  readonly context: string | null;
  readonly operatorGroups: readonly string[];
  readonly viewerGroups: readonly string[];
  /** The audiences asked for (empty: the API server's own). */
  readonly audiences: readonly string[];
  /** How long an answer is reused for the same token. */
  readonly cacheSeconds: number;
  readonly now?: () => number;
}

/** Asks a Kubernetes API server who holds a bearer token. */
export type TokenReviewer = (token: string) => Promise<Identity | null>;

/**
 * A reviewer backed by `POST /apis/authentication.k8s.io/v1/tokenreviews`, as kube-rbac-proxy and the dashboard do:
 * the API server authenticates the token (service-account tokens, OIDC, webhook) and names the user and its groups;
 * the groups map to a role. Answers are cached per token hash for `cacheSeconds`, refusals too.
 */
export function kubernetesTokenReviewer(options: TokenReviewOptions): TokenReviewer {
  const kc = new KubeConfig();
  if (options.kubeconfig === null) kc.loadFromCluster();
  else {
    kc.loadFromFile(options.kubeconfig);
    if (options.context !== null) kc.setCurrentContext(options.context);
  }
  const api = kc.makeApiClient(AuthenticationV1Api);
  const now = options.now ?? Date.now;
  const cache = new Map<string, { identity: Identity | null; until: number }>();
  return async (token) => {
    const key = hashToken(token);
    const hit = cache.get(key);
    if (hit !== undefined && hit.until > now()) return hit.identity;
    let review;
    try {
      review = await api.createTokenReview({
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token, ...(options.audiences.length > 0 ? { audiences: [...options.audiences] } : {}) },
        },
      });
    } catch (e) {
      throw new TokenReviewError(`the TokenReview could not be made: ${errorMessage(e)}`, { cause: e });
    }
    const status = review.status;
    const user = status?.authenticated === true ? status.user : undefined;
    const role = user?.username === undefined ? null : roleFromGroups(user.groups ?? [], options);
    const identity: Identity | null =
      role === null || user?.username === undefined ? null : { name: user.username, role, via: 'kubernetes' };
    if (cache.size > 10_000) cache.clear();
    cache.set(key, { identity, until: now() + options.cacheSeconds * 1000 });
    return identity;
  };
}
