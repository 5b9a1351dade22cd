// RBAC as the API server's authorizer evaluates it (plugin/pkg/auth/authorizer/rbac): a request is allowed when a
// rule of a role bound to the user covers it; nothing is ever denied explicitly. Aggregated ClusterRoles are not
// modelled (their rules are whatever the object holds).
import type { ApiError } from './api-error.ts';
import { isJsonObject } from './json-value.ts';
import type { KubeObject } from './resource-types.ts';

/** Who a request comes from: the user name and groups the authenticator gave it. */
export interface UserInfo {
  readonly name: string;
  /** The user's uid, when the authenticator knows one (a token file's third column). */
  readonly uid?: string;
  readonly groups: readonly string[];
}

/** The group the API server's authorizer chain never restricts (its privileged-groups authorizer runs first). */
export const privilegedGroup = 'system:masters';

/** What a resource request asks for, in authorizer terms. */
export interface ResourceAttributes {
  readonly verb: string;
  readonly apiGroup: string;
  /** The plural resource name (`ingresses`). */
  readonly resource: string;
  /** `status` for `ingresses/status`, '' for the main resource. */
  readonly subresource: string;
  /** '' for cluster-scoped resources and for lists and watches across all namespaces. */
  readonly namespace: string;
  /** '' for create, list and watch (unless a `metadata.name` field selector names one object). */
  readonly name: string;
}

/** The RBAC objects in force. */
export interface RbacPolicy {
  readonly roles: readonly KubeObject[];
  readonly clusterRoles: readonly KubeObject[];
  readonly roleBindings: readonly KubeObject[];
  readonly clusterRoleBindings: readonly KubeObject[];
}

/** The decision: allowed, or not with the reason text RBAC adds (a binding's missing role), possibly ''. */
export type RbacDecision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/** The identity of a ServiceAccount token, as the API server's token authenticator names it. */
export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

type Json = Record<string, unknown>;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);
const field = (o: unknown, key: string): unknown => (isJsonObject(o) ? o[key] : undefined);
const text = (o: unknown, key: string): string => {
  const v = field(o, key);
  return typeof v === 'string' ? v : '';
};

function matches(allowed: readonly string[], wanted: string): boolean {
  return allowed.includes('*') || allowed.includes(wanted);
}

/** A rule's resources match `resource` or `resource/subresource`, `*`, or `*\/subresource` for a subresource. */
function resourceMatches(rule: Json, a: ResourceAttributes): boolean {
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  return strings(rule['resources']).some(
    (r) => r === '*' || r === combined || (a.subresource !== '' && r === `*/${a.subresource}`),
  );
}

/** Whether one PolicyRule covers the request (an empty resourceNames list covers every name). */
export function ruleAllows(rule: unknown, a: ResourceAttributes): boolean {
  if (!isJsonObject(rule)) return false;
  const names = strings(rule['resourceNames']);
  return (
    matches(strings(rule['verbs']), a.verb) &&
    matches(strings(rule['apiGroups']), a.apiGroup) &&
    resourceMatches(rule, a) &&
    (names.length === 0 || (a.name !== '' && names.includes(a.name)))
  );
}

/** A binding subject names the user: by user name, by group, or as a ServiceAccount (namespace defaults to the binding's). */
function subjectMatches(subject: unknown, user: UserInfo, bindingNamespace: string): boolean {
  const name = text(subject, 'name');
  switch (text(subject, 'kind')) {
    case 'User':
      return name === user.name;
    case 'Group':
      return user.groups.includes(name);
    case 'ServiceAccount': {
      const ns = text(subject, 'namespace') || bindingNamespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${name}`;
    }
    default:
      return false;
  }
}

function findNamed(objects: readonly KubeObject[], name: string, namespace: string): KubeObject | undefined {
  return objects.find((o) => o.metadata?.name === name && (o.metadata?.namespace ?? '') === namespace);
}

/** The rules a binding grants, or the error RBAC reports when its role does not exist. */
function boundRules(binding: KubeObject, policy: RbacPolicy): { rules: unknown[] } | { missing: string } {
  const ref = binding['roleRef'];
  const name = text(ref, 'name');
  const namespace = binding.metadata?.namespace ?? '';
  const clusterRole = text(ref, 'kind') === 'ClusterRole';
  // A ClusterRoleBinding may only name a ClusterRole; a RoleBinding a Role of its own namespace or a ClusterRole.
  if (!clusterRole && namespace === '') return { rules: [] };
  const role = clusterRole ? findNamed(policy.clusterRoles, name, '') : findNamed(policy.roles, name, namespace);
  if (role === undefined)
    return { missing: `${clusterRole ? 'clusterrole' : 'role'}.rbac.authorization.k8s.io "${name}" not found` };
  const rules = role['rules'];
  return { rules: Array.isArray(rules) ? rules : [] };
}

/**
 * Authorizes a resource request: members of system:masters are always allowed; otherwise ClusterRoleBindings grant their ClusterRole everywhere; RoleBindings grant their
 * Role or ClusterRole only in their own namespace, so they never cover cluster-scoped resources or requests across
 * all namespaces.
 */
export function authorize(user: UserInfo, a: ResourceAttributes, policy: RbacPolicy): RbacDecision {
  if (user.groups.includes(privilegedGroup)) return { allowed: true };
  const bindings = [
    ...policy.clusterRoleBindings,
    ...(a.namespace === '' ? [] : policy.roleBindings.filter((b) => b.metadata?.namespace === a.namespace)),
  ];
  const missing: string[] = [];
  for (const binding of bindings) {
    const namespace = binding.metadata?.namespace ?? '';
    const subjects: unknown[] = Array.isArray(binding['subjects']) ? binding['subjects'] : [];
    if (!subjects.some((s) => subjectMatches(s, user, namespace))) continue;
    const granted = boundRules(binding, policy);
    if ('missing' in granted) missing.push(granted.missing);
    else if (granted.rules.some((r) => ruleAllows(r, a))) return { allowed: true };
  }
  const reason = missing.length === 0 ? '' : `RBAC: ${missing.length === 1 ? missing[0] : `[${missing.join(', ')}]`}`;
  return { allowed: false, reason };
}

/** The 403 the API server answers a denied request with, worded as its RBAC filter words it. */
export function forbidden(user: UserInfo, a: ResourceAttributes, reason = ''): ApiError {
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  const scope = a.namespace === '' ? 'at the cluster scope' : `in the namespace "${a.namespace}"`;
  const why = `User "${user.name}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${scope}`;
  const qualified = a.apiGroup === '' ? a.resource : `${a.resource}.${a.apiGroup}`;
  const subject = a.name === '' ? qualified : `${qualified} "${a.name}"`;
  return {
    code: 403,
    reason: 'Forbidden',
    message: `${subject} is forbidden: ${why}${reason === '' ? '' : `: ${reason}`}`,
    details: {
      ...(a.name === '' ? {} : { name: a.name }),
      ...(a.apiGroup === '' ? {} : { group: a.apiGroup }),
      kind: a.resource,
    },
  };
}

/** The object a request addresses, as the API server's request-info parser reports it to the authorizer. */
export interface AddressedResource {
  readonly group: string;
  readonly plural: string;
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
}

/**
 * The authorizer's view of a resource request. A list or watch whose field selector pins `metadata.name` is
 * authorized for that name, so `resourceNames` rules can cover an informer on one object.
 */
export function requestAttributes(verb: string, r: AddressedResource, query: URLSearchParams): ResourceAttributes {
  let name = r.name;
  if (name === '' && (verb === 'list' || verb === 'watch')) {
    const terms = (query.get('fieldSelector') ?? '').split(',').map((t) => /^metadata\.name==?(.*)$/.exec(t.trim()));
    const pinned = terms.find((m) => m !== null)?.[1] ?? '';
    if (pinned !== '' && !pinned.includes('/') && !pinned.includes('%') && pinned !== '.' && pinned !== '..')
      name = pinned;
  }
  return { verb, apiGroup: r.group, resource: r.plural, subresource: r.subresource, namespace: r.namespace, name };
}
