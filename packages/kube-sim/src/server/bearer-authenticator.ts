import { timingSafeEqual } from 'node:crypto';
import { adminUser, withAuthenticatedGroup } from '../core/authentication.ts';
import type { UserInfo } from '../core/rbac-authorizer.ts';
import type { ServiceAccountTokens } from './service-account-tokens.ts';

/** Who sent a request: the admin (the simulator's own token, never restricted) or an authenticated user. */
export type Caller = { readonly admin: true } | { readonly admin: false; readonly user: UserInfo };

/**
 * The simulator's bearer token authenticators, in one place so requests and TokenReviews agree on every token:
 * the admin token, issued ServiceAccount tokens, then the token file's users. Any other token is refused.
 */
export class BearerAuthenticator {
  private readonly adminToken: Buffer;
  private readonly serviceAccounts: ServiceAccountTokens;
  private readonly fileUsers: ReadonlyMap<string, UserInfo>;

  constructor(adminToken: string, serviceAccounts: ServiceAccountTokens, fileUsers: ReadonlyMap<string, UserInfo>) {
    this.adminToken = Buffer.from(adminToken);
    this.serviceAccounts = serviceAccounts;
    this.fileUsers = fileUsers;
  }

  /** The caller a token authenticates as, or null when no authenticator knows it (401). */
  authenticate(token: string): Caller | null {
    const given = Buffer.from(token);
    if (given.length === this.adminToken.length && timingSafeEqual(given, this.adminToken)) return { admin: true };
    const user = this.serviceAccounts.userOf(token) ?? this.fileUsers.get(token);
    return user === undefined ? null : { admin: false, user: withAuthenticatedGroup(user) };
  }

  /** The user a token is, as a TokenReview reports it (the admin token is a member of system:masters). */
  userOf(token: string): UserInfo | undefined {
    const caller = this.authenticate(token);
    if (caller === null) return undefined;
    return caller.admin ? adminUser : caller.user;
  }
}
