/** What a caller may do: `viewer` reads everything but Secret material; `operator` also approves, rolls back, resumes. */
export type Role = 'viewer' | 'operator';

/** Who made a call: the name every write records, the role it was granted, and how it was authenticated. */
export interface Identity {
  readonly name: string;
  readonly role: Role;
  /** `token`: a token whose hash is in the fleet config; `kubernetes`: a TokenReview by the named cluster. */
  readonly via: 'token' | 'kubernetes';
}

/** What a call needs. */
export type Permission = 'read' | 'write';

/** Whether the role grants the permission. */
export function allows(role: Role, permission: Permission): boolean {
  return permission === 'read' || role === 'operator';
}

/** The text recorded with a write: `name (via)`, e.g. `alice (token)` or `jane@example.com (kubernetes)`. */
export function actorOf(identity: Identity): string {
  return `${identity.name} (${identity.via})`;
}

/**
 * The role a Kubernetes user gets from its groups: `operator` when one of them is in `operatorGroups`, `viewer` when
 * one is in `viewerGroups`, null (no access) otherwise.
 */
export function roleFromGroups(
  groups: readonly string[],
  mapping: { readonly operatorGroups: readonly string[]; readonly viewerGroups: readonly string[] },
): Role | null {
  if (groups.some((g) => mapping.operatorGroups.includes(g))) return 'operator';
  if (groups.some((g) => mapping.viewerGroups.includes(g))) return 'viewer';
  return null;
}
