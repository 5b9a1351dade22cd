// LoadMaster, end to end: every documented behaviour of its Ingress controller in both modes, kubectl → simulator →
// watcher → planner → applier → LoadMaster emulator (v2 JSON API over self-signed HTTPS), read back with
// listvs/showrule the way an operator would, and out-of-band deletions made through the same API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';
import type { LoadMasterVs } from './appliance-clients.ts';
import { endpointSlice, ingress, ingressClass, namespace, service } from './manifests.ts';
import { eventually } from './eventually.ts';

const ns = 'shop';
/** Enough members and hosts elsewhere that deleting the Ingress under test stays under the 30 % safety limit. */
const keeperPods = Array.from({ length: 8 }, (_, i) => `10.1.1.${i + 1}`);
let p: Pipeline;

before(async () => {
  p = await startPipeline({
    appliances: [
      {
        name: 'lm',
        driver: 'loadmaster',
        ingressControllers: ['portolan.dev/loadmaster'],
        replicas: ['lm-a'],
        mode: 'ingress',
        drift: { intervalSeconds: 1, policy: 'correct' },
      },
      {
        name: 'lmsvc',
        driver: 'loadmaster',
        ingressControllers: ['portolan.dev/loadmaster-service'],
        replicas: ['lmsvc-a'],
        mode: 'service',
        drift: { intervalSeconds: 1, policy: 'correct' },
      },
    ],
  });
  await p.apply(
    [
      namespace(ns),
      ingressClass('lm', 'portolan.dev/loadmaster'),
      ...['web', 'api', 'keep'].map((s) => service(ns, s, 8080)),
      endpointSlice(ns, 'web', ['10.1.0.1', '10.1.0.2'], 8080),
      endpointSlice(ns, 'api', ['10.1.0.3'], 8080),
      endpointSlice(ns, 'keep', keeperPods, 8080),
      ingress(ns, 'keeper', {
        className: 'lm',
        annotations: { 'kemp.ax/vsip': '10.20.0.3', 'kemp.ax/vsport': '80' },
        rules: ['k1', 'k2', 'k3'].map((h) => ({
          host: `${h}.example.com`,
          paths: [{ path: '/', type: 'Prefix' as const, service: 'keep' }],
        })),
      }),
    ].join(''),
  );
});
after(async () => {
  await p?.stop();
});

const context = (): string => p.diagnostics();

/** The top-level virtual service at address:port, or undefined. */
async function vsAt(address: string, port: number): Promise<LoadMasterVs | undefined> {
  return (await p.loadmaster.listVs()).find(
    (v) => v.VSAddress === address && v.VSPort === String(port) && !v.MasterVSID,
  );
}

/** Real server addresses of a VS or SubVS, sorted. */
const rsOf = (v: LoadMasterVs | undefined): string[] => (v?.Rs ?? []).map((r) => `${r.Addr}:${r.Port}`).sort();

/**
 * Where the LoadMaster sends host+path of a request to the VS at address:port: the SubVS whose content rule
 * (regex on Host + path, `inchost`) matches, evaluated from the rules read back with `showrule`.
 */
async function route(address: string, port: number, host: string, path: string): Promise<string[] | null> {
  const all = await p.loadmaster.listVs();
  const parent = all.find((v) => v.VSAddress === address && v.VSPort === String(port) && !v.MasterVSID);
  const rules = ((await p.loadmaster.call('showrule')).MatchContentRule ?? []) as { Name: string; Pattern: string }[];
  const pattern = new Map(rules.map((r) => [r.Name, new RegExp(r.Pattern.replace(/^\/(.*)\/$/s, '$1'))]));
  for (const sub of parent?.SubVS ?? []) {
    const names = (sub as { MatchRules?: string[] }).MatchRules ?? [];
    if (names.some((n) => pattern.get(n)?.test(`${host}${path}`)))
      return rsOf(all.find((v) => v.Index === sub.VSIndex));
  }
  return null;
}

describe('Ingress mode', () => {
  test('an Ingress creates a virtual service with a SubVS per Service, content rules with exact host and path semantics, and a real server per endpoint', async () => {
    await p.apply(
      ingress(ns, 'store', {
        className: 'lm',
        annotations: { 'kemp.ax/vsip': '10.20.0.2', 'kemp.ax/vsport': '80' },
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
    // The apply creates the SubVSs before their real servers: wait for the whole virtual service, not its first half.
    const vs = await eventually(
      'the virtual service with its SubVSs and real servers',
      async () => {
        const v = await vsAt('10.20.0.2', 80);
        assert.equal(v?.SubVS?.length, 2);
        const subs = (await p.loadmaster.listVs()).filter((s) => s.MasterVSID === v!.Index);
        assert.deepEqual(subs.map(rsOf).sort(), [['10.1.0.1:8080', '10.1.0.2:8080'], ['10.1.0.3:8080']]);
        return v!;
      },
      { context },
    );
    assert.match(vs.NickName ?? '', /^ptl_lm-/, 'marked as owned');
    assert.deepEqual(await route('10.20.0.2', 80, 'shop.example.com', '/api'), ['10.1.0.3:8080']);
    assert.deepEqual(await route('10.20.0.2', 80, 'shop.example.com', '/api/v1/items'), ['10.1.0.3:8080']);
    assert.deepEqual(await route('10.20.0.2', 80, 'SHOP.example.com', '/cart'), ['10.1.0.1:8080', '10.1.0.2:8080']);
    assert.deepEqual(
      await route('10.20.0.2', 80, 'shop.example.com', '/apix'),
      ['10.1.0.1:8080', '10.1.0.2:8080'],
      'Prefix matches whole path elements',
    );
    assert.equal(await route('10.20.0.2', 80, 'other.example.com', '/'), null, 'other hosts match no rule');
  });

  test('scaling a Service adds and removes real servers', async () => {
    await p.apply(endpointSlice(ns, 'web', ['10.1.0.1', '10.1.0.2', '10.1.0.4'], 8080));
    await eventually(
      'the added real server',
      async () =>
        assert.deepEqual(await route('10.20.0.2', 80, 'shop.example.com', '/'), [
          '10.1.0.1:8080',
          '10.1.0.2:8080',
          '10.1.0.4:8080',
        ]),
      { context },
    );
    await p.apply(endpointSlice(ns, 'web', ['10.1.0.2', '10.1.0.4'], 8080));
    await eventually(
      'the removed real server',
      async () =>
        assert.deepEqual(await route('10.20.0.2', 80, 'shop.example.com', '/'), ['10.1.0.2:8080', '10.1.0.4:8080']),
      { context },
    );
  });

  test('a real server deleted on the LoadMaster is re-added and the drift recorded', async () => {
    const sub = (await p.loadmaster.listVs()).find(
      (v) => v.MasterVSID !== undefined && v.MasterVSID > 0 && rsOf(v).includes('10.1.0.3:8080'),
    )!;
    // Observations from now on: under a loaded machine the drift timer (1 s here) can also have run during the
    // earlier tests' applies; this test is about the deletion below.
    const since = new Date();
    const deleted = await p.loadmaster.call('delrs', { vs: sub.Index, rs: '10.1.0.3', rsport: 8080 });
    assert.equal(deleted.status, 'ok');
    assert.deepEqual(await route('10.20.0.2', 80, 'shop.example.com', '/api'), [], 'gone on the appliance');
    await eventually(
      'the real server to be re-added',
      async () => assert.deepEqual(await route('10.20.0.2', 80, 'shop.example.com', '/api'), ['10.1.0.3:8080']),
      { context },
    );
    const drift = await p.db
      .selectFrom('drift_observations')
      .select(['action', 'objects', 'before'])
      .where('appliance', '=', p.appliance('lm'))
      .where('observed_at', '>=', since)
      .execute();
    const mine = drift.filter((d) => JSON.stringify(d.objects).includes('10.1.0.3'));
    assert.equal(
      mine.length,
      1,
      `one drift observation names the deleted real server: ${JSON.stringify(drift).slice(0, 400)}`,
    );
    assert.equal(mine[0]!.action, 'corrected');
  });

  test('a virtual service deleted on the LoadMaster is recreated with its SubVSs, rules and real servers while its Ingress exists', async () => {
    const vs = (await vsAt('10.20.0.2', 80))!;
    assert.equal((await p.loadmaster.call('delvs', { vs: vs.Index })).status, 'ok');
    assert.equal(await vsAt('10.20.0.2', 80), undefined, 'gone on the appliance');
    await eventually(
      'the virtual service to be recreated',
      async () => {
        assert.deepEqual(await route('10.20.0.2', 80, 'shop.example.com', '/api'), ['10.1.0.3:8080']);
        assert.deepEqual(await route('10.20.0.2', 80, 'shop.example.com', '/'), ['10.1.0.2:8080', '10.1.0.4:8080']);
      },
      { context },
    );
    assert.match((await vsAt('10.20.0.2', 80))?.NickName ?? '', /^ptl_lm-/);
  });

  test('deleting the Ingress removes the virtual service, SubVSs and rules it created, and nothing else', async () => {
    const keeperBefore = await vsAt('10.20.0.3', 80);
    await p.kubectl(['delete', 'ingress', 'store', '-n', ns]);
    await eventually(
      'the virtual service to be removed',
      async () => assert.equal(await vsAt('10.20.0.2', 80), undefined),
      { context },
    );
    await p.settled('lm'); // the rest of that apply (rules are deleted after the VS that used them)
    const all = await p.loadmaster.listVs();
    assert.deepEqual(
      all.filter((v) => v.MasterVSID && v.MasterVSID !== keeperBefore?.Index).map((v) => v.NickName),
      [],
      'no orphan SubVS',
    );
    const rules = ((await p.loadmaster.call('showrule')).MatchContentRule ?? []) as { Name: string; Pattern: string }[];
    assert.deepEqual(
      rules.filter((r) => r.Pattern.includes('shop')),
      [],
      'its content rules are deleted',
    );
    assert.deepEqual(
      await route('10.20.0.3', 80, 'k2.example.com', '/'),
      keeperPods.map((a) => `${a}:8080`).sort(),
      'the other Ingress is untouched',
    );
    assert.equal((await vsAt('10.20.0.3', 80))?.Index, keeperBefore?.Index);
  });
});

describe('Service mode', () => {
  let vsIndex = 0;
  let retiredIndex = 0;

  test('a Service annotated to an existing virtual service gets one real server per endpoint; the virtual service is not changed', async () => {
    vsIndex = Number(
      (await p.loadmaster.call('addvs', { vs: '10.20.0.1', port: 80, prot: 'tcp', nickname: 'netops-frontend' })).Index,
    );
    retiredIndex = Number(
      (await p.loadmaster.call('addvs', { vs: '10.20.0.5', port: 80, prot: 'tcp', nickname: 'netops-retired' })).Index,
    );
    await p.apply(
      [
        service(ns, 'legacy', 8080, { labels: { kempLB: 'Enabled' }, annotations: { vsid: String(vsIndex) } }),
        endpointSlice(ns, 'legacy', ['10.1.2.1', '10.1.2.2', '10.1.2.3'], 8080),
        service(ns, 'retired', 8080, { labels: { kempLB: 'Enabled' }, annotations: { vsid: String(retiredIndex) } }),
        endpointSlice(ns, 'retired', ['10.1.3.1'], 8080),
      ].join(''),
    );
    await eventually(
      'the real servers',
      async () => {
        assert.deepEqual(rsOf(await vsAt('10.20.0.1', 80)), ['10.1.2.1:8080', '10.1.2.2:8080', '10.1.2.3:8080']);
        assert.deepEqual(rsOf(await vsAt('10.20.0.5', 80)), ['10.1.3.1:8080']);
      },
      { context },
    );
    const vs = (await vsAt('10.20.0.1', 80))!;
    assert.equal(vs.Index, vsIndex);
    assert.equal(vs.NickName, 'netops-frontend', 'the operator-owned virtual service keeps its settings');
  });

  test('a real server deleted on the LoadMaster is re-added', async () => {
    assert.equal((await p.loadmaster.call('delrs', { vs: vsIndex, rs: '10.1.2.2', rsport: 8080 })).status, 'ok');
    assert.deepEqual(rsOf(await vsAt('10.20.0.1', 80)), ['10.1.2.1:8080', '10.1.2.3:8080']);
    await eventually(
      'the real server to be re-added',
      async () =>
        assert.deepEqual(rsOf(await vsAt('10.20.0.1', 80)), ['10.1.2.1:8080', '10.1.2.2:8080', '10.1.2.3:8080']),
      { context },
    );
  });

  test('a virtual service deleted on the LoadMaster is not recreated (as documented: the Service no longer names a valid VS)', async () => {
    const countBefore = (await p.loadmaster.listVs()).length;
    const lastId =
      (
        await p.db
          .selectFrom('applies')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirstOrThrow()
      ).id ?? '0';
    assert.equal((await p.loadmaster.call('delvs', { vs: retiredIndex })).status, 'ok');
    await eventually(
      'the applier to have seen the missing virtual service',
      async () => {
        const rows = await p.db
          .selectFrom('applies')
          .select('results')
          .where('appliance', '=', p.appliance('lmsvc'))
          .where('id', '>', lastId)
          .execute();
        assert.match(JSON.stringify(rows), /VirtualServiceNotFound/);
      },
      { timeoutMs: 10_000, context },
    );
    await sleep(3000); // three drift intervals
    assert.equal(await vsAt('10.20.0.5', 80), undefined, 'the virtual service is not recreated');
    assert.equal((await p.loadmaster.listVs()).length, countBefore - 1, 'nothing else was created');
    assert.deepEqual(
      rsOf(await vsAt('10.20.0.1', 80)),
      ['10.1.2.1:8080', '10.1.2.2:8080', '10.1.2.3:8080'],
      'the other binding is untouched',
    );
  });

  test('the Service whose virtual service was deleted gets a Kubernetes Event', async () => {
    const event = await eventually(
      'a Warning Event on the Service',
      async () => {
        const list = JSON.parse(await p.kubectl(['get', 'events', '-n', ns, '-o', 'json'])) as {
          items: { involvedObject: { kind: string; name: string }; type: string; reason: string; message: string }[];
        };
        const found = list.items.find(
          (e) => e.involvedObject.kind === 'Service' && e.involvedObject.name === 'retired' && e.type === 'Warning',
        );
        assert.ok(
          found !== undefined,
          `no Warning Event on Service retired (events: ${JSON.stringify(list.items.map((e) => [e.involvedObject.name, e.reason]))})`,
        );
        return found;
      },
      { timeoutMs: 5_000, context },
    );
    assert.match(`${event.reason} ${event.message}`, /VirtualService|virtual service/i);
  });

  // Also a regression test: the applier once diffed Service-mode changes against its last render, which holds no
  // pre-existing virtual service, so a change after a successful apply was refused (VirtualServiceNotFound).
  test('scaling the Service adds and removes real servers', async () => {
    // As LoadMaster documents it: the Service whose VS was deleted loses its annotation (here: is deleted), and applies succeed again.
    const lastId =
      (
        await p.db
          .selectFrom('applies')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirstOrThrow()
      ).id ?? '0';
    await p.kubectl(['delete', 'service', 'retired', '-n', ns]);
    await eventually(
      'a succeeded apply without the retired binding',
      async () => {
        const rows = await p.db
          .selectFrom('applies')
          .select('status')
          .where('appliance', '=', p.appliance('lmsvc'))
          .where('id', '>', lastId)
          .execute();
        assert.ok(
          rows.some((r) => r.status === 'succeeded' || r.status === 'noop'),
          JSON.stringify(rows),
        );
      },
      { timeoutMs: 10_000, context },
    );
    await p.apply(endpointSlice(ns, 'legacy', ['10.1.2.1', '10.1.2.2', '10.1.2.3', '10.1.2.4', '10.1.2.5'], 8080));
    await eventually(
      'two more real servers',
      async () =>
        assert.deepEqual(rsOf(await vsAt('10.20.0.1', 80)), [
          '10.1.2.1:8080',
          '10.1.2.2:8080',
          '10.1.2.3:8080',
          '10.1.2.4:8080',
          '10.1.2.5:8080',
        ]),
      { timeoutMs: 10_000, context },
    );
    await p.apply(endpointSlice(ns, 'legacy', ['10.1.2.2', '10.1.2.3', '10.1.2.4', '10.1.2.5'], 8080));
    await eventually(
      'one real server less',
      async () =>
        assert.deepEqual(rsOf(await vsAt('10.20.0.1', 80)), [
          '10.1.2.2:8080',
          '10.1.2.3:8080',
          '10.1.2.4:8080',
          '10.1.2.5:8080',
        ]),
      { timeoutMs: 10_000, context },
    );
  });
});
