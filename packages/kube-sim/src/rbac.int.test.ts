// RBAC with the real kubectl: Roles and bindings applied with the admin token, then requests made with a
// ServiceAccount token (`kubectl --token`) allowed or refused as the API server would, and a changed Role
// taking effect on the next request.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startKubeSim, type KubeSim } from './index.ts';
import { call } from './testing/index.ts';
import { runKubectl, skipWithoutKubectl } from './testing/kubectl-runner.ts';

let sim: KubeSim;
let dir: string;

const kubectl = (args: readonly string[]) => runKubectl(dir, args);
const skip = skipWithoutKubectl;

const policy = (verbs: readonly string[]) => `apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: reader, namespace: portolan}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "portolan:ingress-reader"}
rules:
- apiGroups: [networking.k8s.io]
  resources: [ingresses]
  verbs: [${verbs.join(', ')}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ingress-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "portolan:ingress-reader"}
subjects: [{kind: ServiceAccount, name: reader, namespace: portolan}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: config-reader, namespace: shop}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get]
  resourceNames: [settings]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: config-reader, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: config-reader}
subjects: [{kind: ServiceAccount, name: reader, namespace: portolan}]
`;

describe('RBAC for ServiceAccount tokens, with kubectl', { skip }, () => {
  let token: string;
  const as = (args: readonly string[]) => kubectl([`--token=${token}`, ...args]);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kube-sim-rbac-'));
    sim = await startKubeSim();
    await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
    sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'portolan' } });
    await writeFile(path.join(dir, 'rbac.yaml'), policy(['get', 'list', 'watch']));
    const applied = await kubectl(['apply', '-f', path.join(dir, 'rbac.yaml')]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /clusterrole.rbac.authorization.k8s.io\/portolan:ingress-reader created/);
    for (const name of ['settings', 'other'])
      sim.objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' } });
    token = sim.issueServiceAccountToken('portolan', 'reader');
  });
  after(async () => {
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('allows what a ClusterRoleBinding grants, in every namespace', async () => {
    const listed = await as(['get', 'ingresses', '--all-namespaces']);
    assert.equal(listed.code, 0, listed.stderr);
    const version = await as(['version', '-o', 'json']);
    assert.equal(version.code, 0, `discovery stays open to any authenticated user: ${version.stderr}`);
  });

  it('refuses everything else with the API server words', async () => {
    const secrets = await as(['get', 'secrets', '-n', 'shop']);
    assert.notEqual(secrets.code, 0);
    assert.match(
      secrets.stderr,
      /Error from server \(Forbidden\): secrets is forbidden: User "system:serviceaccount:portolan:reader" cannot list resource "secrets" in API group "" in the namespace "shop"/,
    );
    const nodes = await as(['get', 'nodes']);
    assert.match(nodes.stderr, /cannot list resource "nodes" in API group "" at the cluster scope/);
    const del = await as(['delete', 'ingress', 'web', '-n', 'shop']);
    assert.match(del.stderr, /cannot delete resource "ingresses" in API group "networking.k8s.io"/);
  });

  it('limits a RoleBinding to its namespace and a rule to its resourceNames', async () => {
    assert.equal((await as(['get', 'configmap', 'settings', '-n', 'shop'])).code, 0);
    const other = await as(['get', 'configmap', 'other', '-n', 'shop']);
    assert.match(other.stderr, /configmaps "other" is forbidden: .* cannot get resource "configmaps"/);
    const elsewhere = await as(['get', 'configmap', 'settings', '-n', 'default']);
    assert.match(elsewhere.stderr, /in the namespace "default"/);
  });

  it('applies a changed role on the next request', async () => {
    await writeFile(path.join(dir, 'rbac.yaml'), policy(['get', 'list']));
    assert.equal((await kubectl(['apply', '-f', path.join(dir, 'rbac.yaml')])).code, 0);
    assert.equal((await as(['get', 'ingresses', '-A'])).code, 0);
    // kubectl words a refused watch only as "unknown (get ...)" (it does not decode the Status of a watch): the
    // message itself is checked on the wire.
    const watch = await as(['get', 'ingresses', '-A', '--watch-only', '--request-timeout=2s']);
    assert.match(watch.stderr, /Error from server \(Forbidden\)/);
    const raw = await call(sim, 'GET', '/apis/networking.k8s.io/v1/ingresses?watch=1', { token });
    assert.equal(raw.status, 403);
    assert.match(
      raw.body.message,
      /cannot watch resource "ingresses" in API group "networking.k8s.io" at the cluster scope/,
    );
  });

  it('keeps the admin endpoint to the admin token, which issues ServiceAccount tokens', async () => {
    const issued = await call(sim, 'POST', '/_sim/tokens', { body: { namespace: 'portolan', name: 'reader' } });
    assert.equal(issued.status, 201);
    assert.equal(issued.body.user, 'system:serviceaccount:portolan:reader');
    const refused = await call(sim, 'POST', '/_sim/faults', { body: { action: 'clear' }, token: issued.body.token });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.reason, 'Forbidden');
    const discovery = await call(sim, 'GET', '/apis', { token: issued.body.token });
    assert.equal(discovery.status, 200);
    assert.equal((await as(['get', 'ingresses', '-A', '--token', 'never-issued'])).code, 1);
  });
});
