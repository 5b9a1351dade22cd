// vTM, end to end: kubectl → simulator → watcher → planner → applier → vTM emulator (REST API 8.3), read back
// over the emulator's REST API the way an operator would; drift: an object deleted on the appliance comes back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';
import { endpointSlice, ingress, ingressClass, namespace, service } from './manifests.ts';
import { eventually } from './eventually.ts';

const ns = 'shop';
let p: Pipeline;

before(async () => {
  p = await startPipeline({
    appliances: [
      {
        name: 'vtm',
        driver: 'vtm',
        ingressControllers: ['pulsesecure.net/vtm-ingress-controller'],
        replicas: ['vtm-a'],
        drift: { intervalSeconds: 1, policy: 'correct' },
      },
    ],
  });
  await p.apply(
    [
      namespace(ns),
      ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller'),
      service(ns, 'web', 8080),
      service(ns, 'api', 8080),
      endpointSlice(ns, 'web', ['10.1.0.1', '10.1.0.2'], 8080),
      endpointSlice(ns, 'api', ['10.1.0.3'], 8080),
    ].join(''),
  );
});
after(async () => {
  await p?.stop();
});

const context = (): string => p.diagnostics();
type VtmObject = Record<string, Record<string, unknown>>;

/** The objects of one type whose ownership note names `source` (e.g. `Ingress/local/shop/store`), by name. */
async function owned(type: string, source: string): Promise<Map<string, VtmObject>> {
  const found = new Map<string, VtmObject>();
  for (const name of await p.vtm.names(type)) {
    const object = await p.vtm.get(type, name);
    const note = String(object?.basic?.note ?? object?.raw?.text ?? '');
    if (object !== null && note.includes(`:${source}`)) found.set(name, object);
  }
  return found;
}

const nodes = (pool: VtmObject | undefined): string[] =>
  ((pool?.basic?.nodes_table ?? []) as { node: string }[]).map((n) => n.node).sort();

test('an Ingress becomes a virtual server on its traffic IP group, a pool per Service with the endpoints as nodes, and one routing rule', async () => {
  await p.apply(
    ingress(ns, 'store', {
      className: 'vtm',
      annotations: { 'vtm.pulsesecure.net/ip-address': '10.9.0.1' },
      defaultBackend: 'web',
      rules: [
        {
          host: 'shop.example.com',
          paths: [
            { path: '/', type: 'Prefix', service: 'web' },
            { path: '/api', type: 'Prefix', service: 'api' },
          ],
        },
      ],
    }),
  );
  const [vs] = await eventually(
    'the virtual server',
    async () => {
      const found = [...(await owned('virtual_servers', 'Ingress/local/shop/store')).entries()];
      assert.equal(found.length, 1);
      return found;
    },
    { context },
  );
  const [, server] = vs!;
  const web = await owned('pools', 'Service/local/shop/web');
  const api = await owned('pools', 'Service/local/shop/api');
  assert.equal(web.size, 1);
  assert.equal(api.size, 1);
  const [webName, webPool] = [...web.entries()][0]!;
  assert.deepEqual(nodes(webPool), ['10.1.0.1:8080', '10.1.0.2:8080']);
  assert.deepEqual(nodes([...api.values()][0]), ['10.1.0.3:8080']);

  assert.equal(server.basic?.port, 80);
  assert.equal(server.basic?.protocol, 'http');
  assert.equal(server.basic?.pool, webName, 'the Ingress default backend is the default pool');
  const tigs = server.basic?.listen_on_traffic_ips as string[];
  assert.equal(tigs.length, 1);
  const tig = await p.vtm.get('traffic_ip_groups', tigs[0]!);
  assert.deepEqual(tig?.basic?.ipaddresses, ['10.9.0.1'], 'a traffic IP group holds the annotated address');

  const rules = server.basic?.request_rules as string[];
  assert.equal(rules.length, 1);
  const script = String((await p.vtm.get('rules', rules[0]!))?.raw?.text);
  assert.match(script, /shop\.example\.com/);
  assert.match(script, /\/api/);
  assert.ok(script.includes(`"${[...api.keys()][0]}"`), 'the rule sends /api to the api pool');
});

test('scaling a Service rewrites its pool nodes_table with one write', async () => {
  await p.settled('vtm');
  const pools = await owned('pools', 'Service/local/shop/web');
  const [name] = [...pools.keys()];
  const lastBefore =
    (
      await p.db
        .selectFrom('applies')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow()
    ).id ?? '0';
  await p.apply(endpointSlice(ns, 'web', ['10.1.0.1', '10.1.0.2', '10.1.0.4'], 8080));
  await eventually(
    'the new node',
    async () =>
      assert.deepEqual(nodes((await p.vtm.get('pools', name!)) ?? undefined), [
        '10.1.0.1:8080',
        '10.1.0.2:8080',
        '10.1.0.4:8080',
      ]),
    { context },
  );
  // The node is visible on the appliance a moment before the leader commits its apply record.
  await eventually(
    'the apply record',
    async () => {
      const applies = await p.db
        .selectFrom('applies')
        .select(['operations', 'status'])
        .where('id', '>', lastBefore)
        .where('status', '=', 'succeeded')
        .execute();
      assert.deepEqual(
        applies.map((a) => (a.operations as unknown[]).length),
        [1],
        'one PUT of the pool',
      );
    },
    { context },
  );
});

test('a virtual server deleted on the vTM is recreated and the drift is recorded', async () => {
  const [name] = [...(await owned('virtual_servers', 'Ingress/local/shop/store')).keys()];
  const deleted = await p.vtm.call('DELETE', `virtual_servers/${encodeURIComponent(name!)}`);
  assert.equal(deleted.status, 204);
  await eventually(
    'the virtual server to come back',
    async () => assert.notEqual(await p.vtm.get('virtual_servers', name!), null),
    { context },
  );
  const rows = await eventually(
    'the drift observation',
    async () => {
      const r = await p.db
        .selectFrom('drift_observations')
        .select(['objects', 'before', 'after', 'action'])
        .where('appliance', '=', p.appliance('vtm'))
        .execute();
      assert.ok(r.length > 0, 'no drift recorded');
      return r;
    },
    { context },
  );
  const drift = rows[0]! as {
    objects: string[];
    before: Record<string, unknown>;
    after: Record<string, unknown>;
    action: string;
  };
  const key = drift.objects.find((o) => o.includes(name!));
  assert.ok(key !== undefined, `the drift names ${name}: ${JSON.stringify(drift.objects)}`);
  assert.equal(drift.before[key], null, 'before: missing on the appliance');
  assert.notEqual(drift.after[key], null, 'after: what the last apply left');
  assert.equal(drift.action, 'corrected');
  const recreated = await p.vtm.get('virtual_servers', name!);
  assert.equal(recreated?.basic?.port, 80);
  assert.ok(String(recreated?.basic?.note).includes('Ingress/local/shop/store'), 'recreated with its ownership note');
});

test("an Ingress on the default traffic IP group reports the group's address in its status", async () => {
  await p.apply(
    ingress(ns, 'catalog', {
      className: 'vtm',
      rules: [{ host: 'catalog.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  const [, server] = await eventually(
    'the virtual server on the default group',
    async () => {
      const found = [...(await owned('virtual_servers', 'Ingress/local/shop/catalog')).entries()];
      assert.equal(found.length, 1);
      return found[0]!;
    },
    { context },
  );
  const [group] = server.basic?.listen_on_traffic_ips as string[];
  const addresses = (await p.vtm.get('traffic_ip_groups', group!))?.basic?.ipaddresses as string[] | undefined;
  assert.ok(
    addresses !== undefined && addresses.length > 0,
    `the default group ${group} exists on the vTM with an address`,
  );
  await eventually(
    'the status address',
    async () => {
      const status = await p.kubectl([
        'get',
        'ingress',
        'catalog',
        '-n',
        ns,
        '-o',
        'jsonpath={.status.loadBalancer.ingress[*].ip}',
      ]);
      assert.deepEqual(
        status
          .split(' ')
          .filter((a) => a !== '')
          .sort(),
        [...addresses].sort(),
        "the Ingress shows the default group's addresses",
      );
    },
    { context },
  );
});
