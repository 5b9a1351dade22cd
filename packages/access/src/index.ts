// Access to the console and to every write: tokens, Kubernetes TokenReview, roles, and the identity a write records.
export { actorOf, allows, roleFromGroups, type Identity, type Permission, type Role } from './core/identity.ts';
export { authenticateToken, hashToken, newToken, TOKEN_PREFIX, type TokenGrant } from './adapters/static-tokens.ts';
export {
  kubernetesTokenReviewer,
  TokenReviewError,
  type TokenReviewer,
  type TokenReviewOptions,
} from './adapters/token-review.ts';
