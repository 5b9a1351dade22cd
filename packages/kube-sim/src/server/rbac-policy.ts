import type { RbacPolicy } from '../core/rbac-authorizer.ts';
import { findResourceTypeByKind, rbacGroup, type KubeObject } from '../core/resource-types.ts';
import type { ObjectStore } from '../store/object-store.ts';

function objectsOf(store: ObjectStore, kind: string): KubeObject[] {
  const type = findResourceTypeByKind(`${rbacGroup}/v1`, kind);
  return type === undefined ? [] : [...store.collection(type).objects.values()];
}

/** The RBAC objects stored now: read on every request, so a changed Role takes effect on the next one. */
export function rbacPolicyOf(store: ObjectStore): RbacPolicy {
  return {
    roles: objectsOf(store, 'Role'),
    clusterRoles: objectsOf(store, 'ClusterRole'),
    roleBindings: objectsOf(store, 'RoleBinding'),
    clusterRoleBindings: objectsOf(store, 'ClusterRoleBinding'),
  };
}
