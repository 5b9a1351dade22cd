import { randomBytes } from 'node:crypto';
import { serviceAccountUser, type UserInfo } from '../core/rbac-authorizer.ts';

/**
 * Bearer tokens of ServiceAccounts, issued on request (tests, the admin endpoint). They are opaque, not the
 * API server's JWTs: clients only ever send them back. The ServiceAccount need not exist, as with a token minted
 * before its account was created; RBAC decides what it may do.
 */
export class ServiceAccountTokens {
  private readonly users = new Map<string, UserInfo>();

  /** A new token authenticating as `system:serviceaccount:<namespace>:<name>`. */
  issue(namespace: string, name: string): string {
    const token = randomBytes(24).toString('base64url');
    this.users.set(token, serviceAccountUser(namespace, name));
    return token;
  }

  /** The user a token authenticates as, or undefined for a token this simulator never issued. */
  userOf(token: string): UserInfo | undefined {
    return this.users.get(token);
  }
}
