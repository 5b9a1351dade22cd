import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  authorize,
  forbidden,
  requestAttributes,
  serviceAccountUser,
  type RbacPolicy,
  type ResourceAttributes,
} from './rbac-authorizer.ts';
import type { KubeObject } from './resource-types.ts';

const rbac = 'rbac.authorization.k8s.io/v1';
const rbacGroupName = 'rbac.authorization.k8s.io';
const applier = serviceAccountUser('portolan', 'portolan-applier');

const clusterRole = (name: string, rules: unknown[]): KubeObject => ({
  apiVersion: rbac,
  kind: 'ClusterRole',
  metadata: { name },
  rules,
});
const role = (namespace: string, name: string, rules: unknown[]): KubeObject => ({
  apiVersion: rbac,
  kind: 'Role',
  metadata: { name, namespace },
  rules,
});
const binding = (
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  namespace: string,
  roleRef: { kind: string; name: string },
  subjects: unknown[],
): KubeObject => ({
  apiVersion: rbac,
  kind,
  metadata: { name: `b-${roleRef.name}`, ...(namespace === '' ? {} : { namespace }) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
  subjects,
});
const sa = (name: string, namespace?: string) => ({
  kind: 'ServiceAccount',
  name,
  ...(namespace ? { namespace } : {}),
});

const ask = (a: Partial<ResourceAttributes>): ResourceAttributes => ({
  verb: 'get',
  apiGroup: 'networking.k8s.io',
  resource: 'ingresses',
  subresource: '',
  namespace: 'shop',
  name: 'web',
  ...a,
});

const policy = (p: Partial<RbacPolicy>): RbacPolicy => ({
  roles: [],
  clusterRoles: [],
  roleBindings: [],
  clusterRoleBindings: [],
  ...p,
});

/** The applier's rendered role, bound cluster-wide. */
const applierPolicy = policy({
  clusterRoles: [
    clusterRole('portolan-applier', [
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['get'] },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses/status'], verbs: ['patch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['list', 'create', 'patch'] },
    ]),
  ],
  clusterRoleBindings: [
    binding('ClusterRoleBinding', '', { kind: 'ClusterRole', name: 'portolan-applier' }, [
      sa('portolan-applier', 'portolan'),
    ]),
  ],
});

describe('RBAC authorization', () => {
  const cases: { name: string; policy: RbacPolicy; ask: Partial<ResourceAttributes>; want: boolean }[] = [
    { name: 'a cluster role bound cluster-wide allows its verb', policy: applierPolicy, ask: {}, want: true },
    { name: 'another verb is not allowed', policy: applierPolicy, ask: { verb: 'list', name: '' }, want: false },
    {
      name: 'the main resource does not cover its status',
      policy: applierPolicy,
      ask: { subresource: 'status' },
      want: false,
    },
    {
      name: 'a subresource rule covers the subresource',
      policy: applierPolicy,
      ask: { verb: 'patch', subresource: 'status' },
      want: true,
    },
    {
      name: 'a subresource rule does not cover the main resource',
      policy: applierPolicy,
      ask: { verb: 'patch' },
      want: false,
    },
    {
      name: 'the API group must match',
      policy: applierPolicy,
      ask: { verb: 'create', apiGroup: 'events.k8s.io', resource: 'events', name: '' },
      want: false,
    },
    {
      name: 'the core group is the empty string',
      policy: applierPolicy,
      ask: { verb: 'create', apiGroup: '', resource: 'events', name: '' },
      want: true,
    },
    {
      name: 'another service account gets nothing',
      policy: policy({ ...applierPolicy, clusterRoleBindings: [] }),
      ask: {},
      want: false,
    },
    {
      name: 'wildcards match every verb, group and resource',
      policy: policy({
        clusterRoles: [clusterRole('all', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }])],
        clusterRoleBindings: [
          binding('ClusterRoleBinding', '', { kind: 'ClusterRole', name: 'all' }, [sa('portolan-applier', 'portolan')]),
        ],
      }),
      ask: { verb: 'deletecollection', subresource: 'status' },
      want: true,
    },
    {
      name: '*/status matches the status of any resource',
      policy: policy({
        clusterRoles: [clusterRole('status', [{ apiGroups: ['*'], resources: ['*/status'], verbs: ['update'] }])],
        clusterRoleBindings: [
          binding('ClusterRoleBinding', '', { kind: 'ClusterRole', name: 'status' }, [
            sa('portolan-applier', 'portolan'),
          ]),
        ],
      }),
      ask: { verb: 'update', subresource: 'status' },
      want: true,
    },
    {
      name: 'resourceNames allow only those names',
      policy: policy({
        clusterRoles: [
          clusterRole('one', [
            { apiGroups: ['*'], resources: ['ingresses'], verbs: ['get', 'create'], resourceNames: ['web'] },
          ]),
        ],
        clusterRoleBindings: [
          binding('ClusterRoleBinding', '', { kind: 'ClusterRole', name: 'one' }, [sa('portolan-applier', 'portolan')]),
        ],
      }),
      ask: { name: 'api' },
      want: false,
    },
    {
      name: 'resourceNames never cover a create (it has no name yet)',
      policy: policy({
        clusterRoles: [
          clusterRole('one', [
            { apiGroups: ['*'], resources: ['ingresses'], verbs: ['create'], resourceNames: ['web'] },
          ]),
        ],
        clusterRoleBindings: [
          binding('ClusterRoleBinding', '', { kind: 'ClusterRole', name: 'one' }, [sa('portolan-applier', 'portolan')]),
        ],
      }),
      ask: { verb: 'create', name: '' },
      want: false,
    },
    {
      name: 'a RoleBinding grants its Role in its namespace',
      policy: policy({
        roles: [role('shop', 'r', [{ apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['get'] }])],
        roleBindings: [
          binding('RoleBinding', 'shop', { kind: 'Role', name: 'r' }, [sa('portolan-applier', 'portolan')]),
        ],
      }),
      ask: {},
      want: true,
    },
    {
      name: 'a RoleBinding grants nothing in another namespace',
      policy: policy({
        roles: [role('shop', 'r', [{ apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['get'] }])],
        roleBindings: [
          binding('RoleBinding', 'shop', { kind: 'Role', name: 'r' }, [sa('portolan-applier', 'portolan')]),
        ],
      }),
      ask: { namespace: 'bank' },
      want: false,
    },
    {
      name: 'a RoleBinding to a ClusterRole grants it only in the binding namespace',
      policy: policy({
        ...applierPolicy,
        clusterRoleBindings: [],
        roleBindings: [
          binding('RoleBinding', 'shop', { kind: 'ClusterRole', name: 'portolan-applier' }, [
            sa('portolan-applier', 'portolan'),
          ]),
        ],
      }),
      ask: { verb: 'list', apiGroup: '', resource: 'events', name: '', namespace: '' },
      want: false,
    },
    {
      name: 'a RoleBinding service account subject defaults to the binding namespace',
      policy: policy({
        roles: [
          role('portolan', 'r', [{ apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['get'] }]),
        ],
        roleBindings: [binding('RoleBinding', 'portolan', { kind: 'Role', name: 'r' }, [sa('portolan-applier')])],
      }),
      ask: { namespace: 'portolan' },
      want: true,
    },
    {
      name: 'a Group subject matches the service account groups',
      policy: policy({
        ...applierPolicy,
        clusterRoleBindings: [
          binding('ClusterRoleBinding', '', { kind: 'ClusterRole', name: 'portolan-applier' }, [
            { kind: 'Group', name: 'system:serviceaccounts:portolan' },
          ]),
        ],
      }),
      ask: {},
      want: true,
    },
    {
      name: 'a User subject matches the full service account user name',
      policy: policy({
        ...applierPolicy,
        clusterRoleBindings: [
          binding('ClusterRoleBinding', '', { kind: 'ClusterRole', name: 'portolan-applier' }, [
            { kind: 'User', name: applier.name },
          ]),
        ],
      }),
      ask: {},
      want: true,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(authorize(applier, ask(c.ask), c.policy).allowed, c.want));

  it('a binding to a missing role is the reason given', () => {
    const missing = policy({ clusterRoleBindings: applierPolicy.clusterRoleBindings });
    assert.deepEqual(authorize(applier, ask({}), missing), {
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "portolan-applier" not found',
    });
  });

  it('never restricts system:masters, with no binding at all; other groups get nothing for free', () => {
    const root = { name: 'root', groups: ['system:masters', 'system:authenticated'] };
    const anything = ask({ verb: 'deletecollection', apiGroup: rbacGroupName, resource: 'clusterroles' });
    assert.deepEqual(authorize(root, anything, policy({})), { allowed: true });
    const viewer = { name: 'viewer', groups: ['system:authenticated'] };
    assert.equal(authorize(viewer, anything, policy({})).allowed, false);
  });
});

describe('the 403 of a denied request', () => {
  it('names the user, verb, resource, group and namespace as the API server does', () => {
    const e = forbidden(applier, ask({ verb: 'update', subresource: 'status' }));
    assert.equal(e.code, 403);
    assert.equal(e.reason, 'Forbidden');
    assert.equal(
      e.message,
      'ingresses.networking.k8s.io "web" is forbidden: User "system:serviceaccount:portolan:portolan-applier" cannot update resource "ingresses/status" in API group "networking.k8s.io" in the namespace "shop"',
    );
    assert.deepEqual(e.details, { name: 'web', group: 'networking.k8s.io', kind: 'ingresses' });
  });

  it('says "at the cluster scope" for cluster-wide requests', () => {
    const e = forbidden(applier, ask({ verb: 'list', apiGroup: '', resource: 'nodes', namespace: '', name: '' }));
    assert.equal(
      e.message,
      'nodes is forbidden: User "system:serviceaccount:portolan:portolan-applier" cannot list resource "nodes" in API group "" at the cluster scope',
    );
  });
});

describe('request attributes', () => {
  const addressed = { group: '', plural: 'secrets', namespace: 'shop', name: '', subresource: '' };
  it('take the name of a list pinned by a metadata.name field selector', () => {
    const q = new URLSearchParams({ fieldSelector: 'type=kubernetes.io/tls,metadata.name=cert' });
    assert.equal(requestAttributes('list', addressed, q).name, 'cert');
    assert.equal(requestAttributes('watch', addressed, q).name, 'cert');
  });
  it('keep an unpinned list nameless', () => {
    assert.equal(requestAttributes('list', addressed, new URLSearchParams({ fieldSelector: 'type=x' })).name, '');
  });
});
