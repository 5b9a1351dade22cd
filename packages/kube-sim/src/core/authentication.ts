// The parts of the API server's authenticator chain that are plain data: the group every authenticated user
// gets, the audiences it accepts, and who the simulator's admin token is when a TokenReview asks.
import { privilegedGroup, type UserInfo } from './rbac-authorizer.ts';

/** The group the API server adds to every authenticated user (apiserver's AuthenticatedGroupAdder). */
export const authenticatedGroup = 'system:authenticated';

/** The API server's own audience (`--api-audiences`): what a token is for when a TokenReview names none. */
export const apiServerAudiences: readonly string[] = ['https://kubernetes.default.svc'];

/**
 * Who the admin token is, for TokenReviews: a member of system:masters, the group no authorizer restricts, as the
 * admin token is never restricted. Requests made with it are still told apart from this user's (only the admin
 * token reaches `/_sim/*`).
 */
export const adminUser: UserInfo = { name: 'kubernetes-admin', groups: [privilegedGroup, authenticatedGroup] };

/** The user with `system:authenticated` appended, unless it already has it or `system:unauthenticated`. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  const has = user.groups.includes(authenticatedGroup) || user.groups.includes('system:unauthenticated');
  return has || user.name === 'system:anonymous' ? user : { ...user, groups: [...user.groups, authenticatedGroup] };
}

/**
 * The audiences a token is accepted for: those requested that the API server serves (all of its own when none
 * are requested), as apiserver's audience-agnostic token wrapper computes them. Empty: the token is refused.
 */
export function acceptedAudiences(requested: readonly string[]): readonly string[] {
  return requested.length === 0 ? apiServerAudiences : apiServerAudiences.filter((a) => requested.includes(a));
}
