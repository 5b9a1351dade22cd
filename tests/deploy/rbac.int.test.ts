// RBAC is least privilege, proven: the simulator enforces the ClusterRoles the single-site overlay renders, the
// watcher, planner and applier run as the Deployments run them (in-cluster credentials from a service-account
// folder, KUBERNETES_SERVICE_HOST/PORT, the fleet config file), and the pipeline works end to end; then each verb
// of each rendered rule is taken away in turn and exactly what needs it breaks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '@portolan/kube-sim';
import { eventually } from '../e2e/eventually.ts';
import { byKind } from './render.ts';
import { grantKey, grantsOf, isForbidden, serviceProbes, type Probe } from './rbac-probes.ts';
import { kubectl, renderedRbac, startRbacStack, type RbacStack, type ServiceProcess } from './rbac-stack.ts';

const roles = byKind(renderedRbac, 'ClusterRole');

/** The role with one verb taken out of one rule (a rule left with no verb is dropped, as an empty one is invalid). */
function withoutVerb(role: KubeObject, ruleIndex: number, verb: string): KubeObject {
  const rules = (role['rules'] as { verbs: string[] }[])
    .map((r, i) => (i === ruleIndex ? { ...r, verbs: r.verbs.filter((v) => v !== verb) } : r))
    .filter((r) => r.verbs.length > 0);
  return { ...role, rules };
}

/** Which probes pass and which fail with 403 (any other failure is a broken test, thrown). */
async function outcomes(probes: ReadonlyMap<string, Probe>, keys: readonly string[]): Promise<Map<string, boolean>> {
  const result = new Map<string, boolean>();
  for (const key of keys) {
    try {
      await probes.get(key)!();
      result.set(key, true);
    } catch (e) {
      if (!isForbidden(e)) throw new Error(`${key}: not a 403: ${(e as Error).message}`, { cause: e });
      result.set(key, false);
    }
  }
  return result;
}

const shop = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: portolan}
spec: {controller: portolan.dev/ingress-controller}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{name: http, port: 80, targetPort: 8080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: shop, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
ports: [{name: http, port: 8080, protocol: TCP}]
endpoints: [{addresses: [127.0.42.1], conditions: {ready: true}}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop}
spec:
  ingressClassName: portolan
  rules: [{host: shop.example, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: bucket, namespace: shop}
spec:
  ingressClassName: portolan
  rules: [{host: files.example, http: {paths: [{path: /, pathType: Prefix, backend: {resource: {apiGroup: storage.example, kind: Bucket, name: b}}}]}}]
`;

describe('the rendered RBAC is least privilege', () => {
  let s: RbacStack;
  const running: ServiceProcess[] = [];
  const logs = (): string => running.map((p) => p.log().split('\n').slice(-15).join('\n')).join('\n---\n');

  before(async () => {
    s = await startRbacStack();
  });
  after(async () => {
    for (const p of running) await p.stop();
    await s?.close();
  });

  it('renders a ClusterRole per service that talks to Kubernetes, bound to its ServiceAccount', () => {
    assert.deepEqual(roles.map((r) => r.metadata.name).sort(), ['portolan-applier', 'portolan-watcher']);
    for (const b of byKind(renderedRbac, 'ClusterRoleBinding'))
      assert.deepEqual(b.subjects, [{ kind: 'ServiceAccount', name: b.metadata.name, namespace: 'portolan' }]);
    // The console only asks who holds a token: the built-in role for delegated authentication, nothing of its own.
    const delegator = byKind(renderedRbac, 'ClusterRoleBinding').find((b) => b.metadata.name === 'portolan-console');
    assert.deepEqual(delegator?.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'system:auth-delegator',
    });
  });

  it('runs the pipeline under exactly the rendered roles: every kind synced, status written, Event recorded', async () => {
    await kubectl(s.kubeconfig, ['apply', '-f', '-'], shop);
    for (const name of ['planner', 'applier', 'watcher'] as const) running.push(await s.startService(name));
    const watcher = running[2]!;
    await eventually(
      'the watcher to have listed every kind',
      async () => {
        const res = await fetch(`http://127.0.0.1:${watcher.healthPort}/readyz`);
        assert.equal(res.status, 200, await res.text());
      },
      { timeoutMs: 30_000, context: logs },
    );
    await eventually(
      'the applier to write the Ingress status',
      () => {
        const ing = s.sim.objects.get({
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          namespace: 'shop',
          name: 'web',
        });
        assert.deepEqual((ing?.['status'] as { loadBalancer: unknown }).loadBalancer, {
          ingress: [{ ip: '127.0.0.1' }],
        });
      },
      { timeoutMs: 60_000, context: logs },
    );
    await eventually(
      'the applier to record an Event on the rejected Ingress',
      () => {
        const events = s.sim.objects.list('v1', 'Event', 'shop') as {
          involvedObject: { name: string };
          source?: { component?: string };
        }[];
        assert.ok(
          events.some((e) => e.involvedObject.name === 'bucket' && e.source?.component === 'portolan-applier'),
          JSON.stringify(events.map((e) => [e.involvedObject.name, e.source?.component])),
        );
      },
      { timeoutMs: 30_000, context: logs },
    );
    assert.doesNotMatch(logs(), /forbidden/i, 'no request of the running services was refused');
  });

  it('breaks exactly what needs a verb when the verb is taken out of its rule', async () => {
    // This process is the probes' pod: client-node reads the API server's address from the environment only.
    process.env['KUBERNETES_SERVICE_HOST'] = '127.0.0.1';
    process.env['KUBERNETES_SERVICE_PORT'] = String(s.sim.port);
    const probes = await serviceProbes(s.sim, (service) => s.serviceAccountRoot(service));
    const grants = roles.flatMap(grantsOf);
    const unprobed = grants.map(grantKey).filter((k) => !probes.has(k));
    assert.deepEqual(unprobed, [], 'every permission the roles grant is used by a service (add its probe)');
    const all = await outcomes(probes, grants.map(grantKey));
    assert.deepEqual(
      [...all].filter(([, ok]) => !ok).map(([k]) => k),
      [],
      'everything is allowed under the full roles',
    );
    for (const role of roles) {
      const keys = grantsOf(role).map(grantKey);
      for (const [i, rule] of (role.rules as { verbs: string[] }[]).entries()) {
        for (const verb of rule.verbs) {
          s.sim.objects.apply(withoutVerb(role, i, verb));
          const removed = grantsOf({ ...role, rules: [{ ...role.rules[i], verbs: [verb] }] }).map(grantKey);
          const result = await outcomes(probes, keys);
          assert.deepEqual(
            [...result]
              .filter(([, ok]) => !ok)
              .map(([k]) => k)
              .sort(),
            [...removed].sort(),
            `without ${verb} in rule ${i} of ${role.metadata.name}`,
          );
        }
      }
      s.sim.objects.apply(role);
    }
  });
  it('keeps a restarted watcher unready, naming the kinds it may no longer list', async () => {
    const role = roles.find((r) => r.metadata.name === 'portolan-watcher')!;
    const rule = (role.rules as { resources: string[] }[]).findIndex((r) => r.resources.includes('nodes'));
    s.sim.objects.apply(withoutVerb(role, rule, 'list'));
    try {
      await running.splice(2, 1)[0]!.stop();
      const watcher = await s.startService('watcher');
      running.push(watcher);
      await eventually(
        'the watcher to report Service and Node not synced',
        async () => {
          const res = await fetch(`http://127.0.0.1:${watcher.healthPort}/readyz`);
          const text = await res.text();
          assert.equal(res.status, 503, text);
          assert.match(text, /Service not synced/);
          assert.match(text, /Node not synced/);
          assert.doesNotMatch(text, /Ingress not synced/);
        },
        { timeoutMs: 20_000, context: logs },
      );
    } finally {
      s.sim.objects.apply(role);
    }
  });
});
