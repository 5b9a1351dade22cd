import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { byKind, deployRoot, overlays, render, validate, type Manifest } from './render.ts';

for (const overlay of overlays) {
  test(`${overlay}: kubectl kustomize renders it and every object satisfies its OpenAPI schema`, async () => {
    const objects = render(overlay);
    assert.ok(objects.length >= 20, `rendered ${objects.length} objects`);
    for (const o of objects) await validate(o);
    const kinds = new Set(objects.map((o) => o.kind));
    for (const k of ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Deployment'])
      assert.ok(kinds.has(k), `${k} is rendered`);
    for (const k of ['PodDisruptionBudget', 'ConfigMap', 'IngressClass', 'ServiceMonitor', 'PrometheusRule'])
      assert.ok(kinds.has(k), `${k} is rendered`);
    for (const o of objects.filter(
      (x) => x.kind !== 'Namespace' && !x.kind.startsWith('Cluster') && x.kind !== 'IngressClass',
    ))
      assert.equal(o.metadata.namespace, 'portolan', `${o.kind}/${o.metadata.name} lives in the portolan namespace`);
  });
}

test('the schema check can fail: a Deployment with a wrong field type is refused, naming the object', async () => {
  const broken = structuredClone(byKind(render('single-site'), 'Deployment')[0]!);
  broken.spec.replicas = 'two';
  await assert.rejects(
    validate(broken),
    (e: unknown) => e instanceof TypeError && e.message.includes(broken.metadata.name),
  );
});

test('every Deployment runs non-root, read-only, without privilege escalation, with probes and resources', () => {
  for (const overlay of overlays)
    for (const d of byKind(render(overlay), 'Deployment')) {
      const pod = d.spec.template.spec;
      const c = pod.containers[0];
      const where = `${overlay} ${d.metadata.name}`;
      assert.equal(pod.securityContext.runAsNonRoot, true, where);
      assert.equal(c.securityContext.readOnlyRootFilesystem, true, where);
      assert.equal(c.securityContext.allowPrivilegeEscalation, false, where);
      assert.deepEqual(c.securityContext.capabilities.drop, ['ALL'], where);
      assert.equal(c.livenessProbe.httpGet.path, '/healthz', where);
      assert.equal(c.readinessProbe.httpGet.path, '/readyz', where);
      assert.ok(c.resources.requests.memory && c.resources.limits.memory, `${where}: memory request and limit`);
      assert.ok(
        pod.volumes.some((v: { name: string }) => v.name === 'tmp'),
        `${where}: a writable /tmp`,
      );
    }
});

test('appliers run two per group, spread over zones and nodes, kept by a PodDisruptionBudget; sites split', () => {
  const single = render('single-site');
  const [applier] = byKind(single, 'Deployment').filter((d) => d.metadata.name === 'portolan-applier');
  assert.equal(applier?.spec.replicas, 2);
  const keys = applier.spec.template.spec.topologySpreadConstraints.map((t: { topologyKey: string }) => t.topologyKey);
  assert.deepEqual(keys, ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
  assert.equal(byKind(single, 'PodDisruptionBudget')[0]?.spec.minAvailable, 1);

  const multi = render('multi-site');
  const appliers = byKind(multi, 'Deployment').filter((d) => d.metadata.name.startsWith('portolan-applier'));
  const groups = appliers.map((d: Manifest) => [d.metadata.name, d.spec.template.spec.containers[0].args[4]]);
  assert.deepEqual(groups.sort(), [
    ['portolan-applier-site-a', 'edge-a'],
    ['portolan-applier-site-b', 'edge-b'],
  ]);
  const selectors = appliers.map((d: Manifest) => JSON.stringify(d.spec.selector.matchLabels));
  assert.equal(new Set(selectors).size, 2, 'the two sites never select each other’s pods');
  assert.equal(byKind(multi, 'PodDisruptionBudget').length, 2, 'one budget per site');
});

test('multi-site: the fleet config names every engine node (3 NATS URLs, multi-host Postgres, Sentinels)', async () => {
  const { parseFleetConfig } = await import('@portolan/fleet-config');
  const multi = render('multi-site');
  const [fleet] = byKind(multi, 'ConfigMap').filter((c) => c.metadata.name.startsWith('portolan-fleet'));
  const text = fleet.data['fleet.yaml'] as string;
  const { config } = parseFleetConfig(text, 'fleet.yaml', '/etc/portolan');
  const raw = parse(text) as { bus: { url: unknown } };
  assert.ok(Array.isArray(raw.bus.url) && raw.bus.url.length === 3, 'bus.url lists three NATS nodes');
  assert.equal(new Set(raw.bus.url).size, 3);
  assert.equal(config.bus.replicas, 3, 'every stream on all three nodes');
  const store = new URL(config.store.url.replace(/@[^/]+\//, '@host/'));
  assert.equal(store.searchParams.get('target_session_attrs'), 'read-write');
  assert.equal(/@([^/]+)\//.exec(config.store.url)![1]!.split(',').length, 2, 'the primary and its standby');
  assert.equal(config.leases.sentinels?.length, 3);
  assert.equal(config.leases.sentinelName, 'portolan');
  assert.match(config.leases.redisUrl, /^redis-sentinel:\/\//);
  // Each site's group is served by a pair of applier replicas of its own.
  const appliers = byKind(multi, 'Deployment').filter((d) => d.metadata.name.startsWith('portolan-applier-site-'));
  assert.deepEqual(appliers.map((d: Manifest) => [d.metadata.labels['portolan.dev/site'], d.spec.replicas]).sort(), [
    ['site-a', 2],
    ['site-b', 2],
  ]);
  assert.deepEqual(config.appliances.map((a) => a.name).sort(), ['edge-a', 'edge-b']);
});

test('RBAC: each service may do only what it uses; Secrets are written only with the ACME component', () => {
  const rules = (objects: Manifest[], name: string) =>
    byKind(objects, 'ClusterRole')
      .find((r) => r.metadata.name === name)
      ?.rules.flatMap((r: { resources: string[]; verbs: string[] }) =>
        r.resources.flatMap((res) => r.verbs.map((v) => `${res}:${v}`)),
      )
      .sort();
  const single = render('single-site');
  assert.deepEqual(rules(single, 'portolan-watcher'), [
    'endpointslices:list',
    'endpointslices:watch',
    'events:create',
    'gatewayclasses:list',
    'gatewayclasses:watch',
    'gateways:list',
    'gateways:watch',
    'httproutes:list',
    'httproutes:watch',
    'ingressclasses:list',
    'ingressclasses:watch',
    'ingresses:list',
    'ingresses:watch',
    'namespaces:list',
    'namespaces:watch',
    'nodes:list',
    'nodes:watch',
    'referencegrants:list',
    'referencegrants:watch',
    'secrets:list',
    'secrets:watch',
    'services:list',
    'services:watch',
    'tlsroutes:list',
    'tlsroutes:watch',
  ]);
  assert.deepEqual(rules(single, 'portolan-applier'), [
    'events:create',
    'events:list',
    'events:patch',
    'gatewayclasses/status:patch',
    'gatewayclasses:get',
    'gateways/status:patch',
    'gateways:get',
    'httproutes/status:patch',
    'httproutes:get',
    'ingresses/status:patch',
    'ingresses:get',
    'tlsroutes/status:patch',
    'tlsroutes:get',
  ]);
  assert.equal(rules(single, 'portolan-applier-acme'), undefined, 'no Secret writes without ACME');
  assert.deepEqual(rules(render('multi-site'), 'portolan-applier-acme'), [
    'secrets:create',
    'secrets:get',
    'secrets:update',
  ]);
  for (const sa of byKind(single, 'ServiceAccount').filter((s) => /planner|leader/.test(s.metadata.name)))
    assert.equal(sa.automountServiceAccountToken, false, `${sa.metadata.name} gets no Kubernetes token`);
});

test('alerts cover a silent watch stall, held removals, failing applies and plans, apply lag, a stopped planner, no leader', () => {
  const [rule] = byKind(render('single-site'), 'PrometheusRule');
  const alerts = rule.spec.groups.flatMap((g: { rules: { alert: string }[] }) => g.rules.map((r) => r.alert));
  for (const a of [
    'PortolanWatchStalled',
    'PortolanRemovalHeld',
    'PortolanApplyFailing',
    'PortolanApplyLag',
    'PortolanPlannerNotConsuming',
    'PortolanPlanFailing',
    'PortolanNoLeader',
  ])
    assert.ok(alerts.includes(a), `alert ${a}`);
  const dashboard = JSON.parse(
    readFileSync(path.join(deployRoot, 'base', 'monitoring', 'portolan-dashboard.json'), 'utf8'),
  );
  assert.ok(dashboard.panels.length >= 6, 'the dashboard has panels');
});
