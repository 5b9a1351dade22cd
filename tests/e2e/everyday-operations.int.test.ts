// Everyday operation of a cluster, on one long-lived pipeline (kubectl → simulator → watcher → planner → applier →
// HAProxy and the vTM emulator), the way a real cluster lives: teams come and go, Services scale to zero and back,
// Ingresses are deleted and re-created, certificates rotate, an Ingress changes class, an environment is torn down
// and rebuilt, and a relist that loses objects is held while everything else keeps flowing. Every step is checked
// by traffic through HAProxy or by the vTM emulator's read-back, within STEP_MS.
//
// One file over 400 lines on purpose: the steps are one day on one pipeline, in order, each building on the
// state the previous ones left; split, they would no longer test a long-lived stack.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pipeline } from './pipeline-harness.ts';
import { answers, fault, pod, PODS, portolan, servedBy, startDay, team, who, within } from './everyday-day.ts';
import { endpointSlice, ingress, ingressClass, namespace, selfSignedCertificate, service } from './manifests.ts';
import { recordGoldenIfAsked } from './golden-recorder.ts';

let p: Pipeline;
before(async () => {
  p = await startDay({
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a', 'edge-b'],
      },
      {
        name: 'vtm',
        driver: 'vtm',
        ingressControllers: ['pulsesecure.net/vtm-ingress-controller'],
        replicas: ['vtm-a'],
      },
    ],
    echoAddresses: PODS,
  });
  await p.apply(
    ingressClass('portolan', 'portolan.dev/ingress-controller') +
      ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller'),
  );
});
after(async () => {
  if (p !== undefined) await recordGoldenIfAsked(p, 'everyday-operations');
  await p?.stop();
});

test('01 a team arrives: its Ingress is served by its pods', async () => {
  await p.apply(team('team-a', ['a.example.com'], [pod(1), pod(2)]));
  await servedBy('a.example.com', [pod(1), pod(2)]);
});

test('02 two teams arrive at once', async () => {
  await p.apply(
    team(
      'team-b',
      ['b1.example.com', 'b2.example.com', 'b3.example.com', 'b4.example.com', 'b5.example.com'],
      [pod(3)],
    ) + team('team-c', ['c.example.com'], [pod(4)]),
  );
  await servedBy('b5.example.com', [pod(3)]);
  await servedBy('c.example.com', [pod(4)]);
});

test('03 a Service scales up: the new pod takes traffic', async () => {
  await p.apply(endpointSlice('team-a', 'web', [pod(1), pod(2), pod(5)], p.echoPort));
  await within('pod 5 in rotation', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) seen.add(await who('a.example.com'));
    assert.ok(seen.has(pod(5)), [...seen].join(','));
  });
});

test('04 a Service scales to zero: 503, and it is not held by the safety rule', async () => {
  await p.apply(endpointSlice('team-a', 'web', [], p.echoPort));
  await answers('a.example.com', 503);
});

test('05 the Service scales back: served again', async () => {
  await p.apply(endpointSlice('team-a', 'web', [pod(1), pod(2)], p.echoPort));
  await servedBy('a.example.com', [pod(1), pod(2)]);
});

test('06 an Ingress is deleted: 404', async () => {
  await p.kubectl(['delete', 'ingress', 'web', '-n', 'team-c']);
  await answers('c.example.com', 404);
});

test('07 it is re-created under the same name with other paths', async () => {
  await p.apply(
    ingress('team-c', 'web', {
      className: 'portolan',
      rules: [{ host: 'c.example.com', paths: [{ path: '/shop', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await within('c.example.com/shop served', async () => assert.equal(await who('c.example.com', '/shop/cart'), pod(4)));
  assert.equal(await who('c.example.com', '/'), 'status 404', 'only /shop is routed now');
});

test('08 a namespace holding most of the hosts is deleted: its hosts go, and nothing freezes', async () => {
  await p.kubectl(['delete', 'namespace', 'team-b']);
  await answers('b1.example.com', 404);
  await answers('b5.example.com', 404);
  await servedBy('a.example.com', [pod(1), pod(2)]);
});

test('09 right after that deletion a new Ingress goes live', async () => {
  await p.apply(
    ingress('team-c', 'blog', {
      className: 'portolan',
      rules: [{ host: 'blog.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await servedBy('blog.example.com', [pod(4)]);
});

test('10 an Ingress edited to drop hosts: the dropped ones go, the kept one stays', async () => {
  await p.apply(
    team(
      'team-d',
      ['d1.example.com', 'd2.example.com', 'd3.example.com', 'd4.example.com', 'd5.example.com'],
      [pod(6)],
    ),
  );
  await servedBy('d5.example.com', [pod(6)]);
  await p.apply(
    ingress('team-d', 'web', {
      className: 'portolan',
      rules: [{ host: 'd1.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await answers('d5.example.com', 404);
  await servedBy('d1.example.com', [pod(6)]);
});

test('11 several teams leave at once', async () => {
  await p.apply(team('team-e', ['e.example.com'], [pod(7)]) + team('team-f', ['f.example.com'], [pod(8)]));
  await servedBy('e.example.com', [pod(7)]);
  await servedBy('f.example.com', [pod(8)]);
  await p.kubectl(['delete', 'namespace', 'team-d', 'team-e', 'team-f', '--wait=false']);
  for (const host of ['d1.example.com', 'e.example.com', 'f.example.com']) await answers(host, 404);
  await servedBy('blog.example.com', [pod(4)]);
});

test('12 a Service is deleted: 503; re-created: served', async () => {
  await p.kubectl(['delete', 'service', 'web', '-n', 'team-c']);
  await answers('blog.example.com', 503);
  await p.apply(service('team-c', 'web', p.echoPort));
  await servedBy('blog.example.com', [pod(4)]);
});

test('13 an EndpointSlice is deleted and re-created', async () => {
  await p.kubectl(['delete', 'endpointslice', 'web-1', '-n', 'team-c']);
  await answers('blog.example.com', 503);
  await p.apply(endpointSlice('team-c', 'web', [pod(9)], p.echoPort));
  await servedBy('blog.example.com', [pod(9)]);
});

const certV1 = { current: null as ReturnType<typeof selfSignedCertificate> | null };
const certV2 = { current: null as ReturnType<typeof selfSignedCertificate> | null };
after(() => {
  certV1.current?.dispose();
  certV2.current?.dispose();
});

test('14 TLS is added to an Ingress: HTTPS by SNI with its certificate', async () => {
  certV1.current = selfSignedCertificate(['a.example.com']);
  await p.kubectl([
    'create',
    'secret',
    'tls',
    'a-tls',
    '-n',
    'team-a',
    '--cert',
    certV1.current.certFile,
    '--key',
    certV1.current.keyFile,
  ]);
  await p.apply(
    ingress('team-a', 'web', {
      className: 'portolan',
      tls: [{ hosts: ['a.example.com'], secretName: 'a-tls' }],
      rules: [
        { host: 'a.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] },
        { host: 'plain-a.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] },
      ],
    }),
  );
  await within('HTTPS for a.example.com', async () => {
    const r = await p.request('a.example.com', '/', { https: true });
    assert.ok(r.echo !== null && [pod(1), pod(2)].includes(r.echo.address), `status ${r.status}`);
    assert.equal(r.certificateNames, 'DNS:a.example.com');
  });
});

test('15 with TLS, every rule is still served over plain HTTP', async () => {
  await servedBy('plain-a.example.com', [pod(1), pod(2)]);
  await servedBy('a.example.com', [pod(1), pod(2)]);
});

test('16 the TLS Secret is rotated: the new certificate is served', async () => {
  certV2.current = selfSignedCertificate(['a.example.com', 'www.a.example.com']);
  const secret = await p.kubectl([
    'create',
    'secret',
    'tls',
    'a-tls',
    '-n',
    'team-a',
    '--cert',
    certV2.current.certFile,
    '--key',
    certV2.current.keyFile,
    '--dry-run=client',
    '-o',
    'yaml',
  ]);
  await p.apply(secret);
  await within('the rotated certificate', async () => {
    const r = await p.request('a.example.com', '/', { https: true });
    assert.equal(r.certificateNames, 'DNS:a.example.com, DNS:www.a.example.com');
  });
});

/** The vTM virtual servers whose ownership note names an Ingress. */
async function vtmServersOf(source: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await p.vtm.names('virtual_servers')) {
    const vs = await p.vtm.get('virtual_servers', name);
    if (String(vs?.basic?.note ?? '').includes(`:${source}`)) out.push(name);
  }
  return out;
}

test('17 an Ingress moves from class portolan to vtm: gone from HAProxy, a virtual server on the vTM', async () => {
  await p.apply(
    ingress('team-c', 'blog', {
      className: 'vtm',
      annotations: { 'vtm.pulsesecure.net/ip-address': '10.9.41.1' },
      rules: [{ host: 'blog.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await answers('blog.example.com', 404);
  await within('the vTM virtual server', async () =>
    assert.equal((await vtmServersOf('Ingress/local/team-c/blog')).length, 1),
  );
});

test('18 and back to portolan: served by HAProxy, removed from the vTM', async () => {
  await p.apply(
    ingress('team-c', 'blog', {
      className: 'portolan',
      rules: [{ host: 'blog.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await servedBy('blog.example.com', [pod(9)]);
  await within('the vTM virtual server removed', async () =>
    assert.deepEqual(await vtmServersOf('Ingress/local/team-c/blog'), []),
  );
});

const environment = (): string =>
  team('env-web', ['web.env.example.com', 'www.env.example.com'], [pod(10), pod(11)]) +
  team('env-api', ['api.env.example.com'], [pod(12)]) +
  team('env-admin', ['admin.env.example.com'], [pod(13)]);

test('19 a whole environment comes up', async () => {
  await p.apply(environment());
  await servedBy('www.env.example.com', [pod(10), pod(11)]);
  await servedBy('api.env.example.com', [pod(12)]);
  await servedBy('admin.env.example.com', [pod(13)]);
});

test('20 it is torn down at once', async () => {
  await p.kubectl(['delete', 'namespace', 'env-web', 'env-api', 'env-admin', '--wait=false']);
  for (const host of ['web.env.example.com', 'api.env.example.com', 'admin.env.example.com']) await answers(host, 404);
});

test('21 and rebuilt', async () => {
  await p.apply(environment());
  await servedBy('web.env.example.com', [pod(10), pod(11)]);
  await servedBy('admin.env.example.com', [pod(13)]);
});

test('22 nothing is held and status says so', async () => {
  const r = await portolan(['status', '-o', 'json']);
  const report = JSON.parse(r.stdout) as { holds: unknown[] };
  assert.deepEqual(report.holds, []);
});

const heldHosts = Array.from({ length: 6 }, (_, i) => `h${i}.example.com`);

test('23 a team with six Ingresses arrives', async () => {
  await p.apply(
    [
      namespace('team-h'),
      service('team-h', 'web', p.echoPort),
      endpointSlice('team-h', 'web', [pod(14)], p.echoPort),
      ...heldHosts.map((host, i) =>
        ingress('team-h', `i${i}`, {
          className: 'portolan',
          rules: [{ host, paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
        }),
      ),
    ].join(''),
  );
  for (const host of heldHosts) await servedBy(host, [pod(14)]);
  // Their statuses are written before the fault: a later status write is a watch event, and an object Kubernetes
  // reports again is not gone (its hold would end there, rightly).
  await within('the six statuses', async () => {
    const list = JSON.parse(await p.kubectl(['get', 'ingress', '-n', 'team-h', '-o', 'json'])) as {
      items: { status?: { loadBalancer?: { ingress?: unknown[] } } }[];
    };
    assert.equal(list.items.filter((i) => (i.status?.loadBalancer?.ingress ?? []).length > 0).length, 6);
  });
});

test('24 a relist loses them (a simulator fault): the removal is held, while a new Ingress of the same relist goes live', async () => {
  await fault({ action: 'hide-from-lists', resource: 'ingresses', namespace: 'team-h' });
  await p.apply(
    ingress('team-a', 'fresh', {
      className: 'portolan',
      rules: [{ host: 'fresh.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await fault({ action: 'watch-gone', resource: 'ingresses' });
  await within('the removal to be held', async () => {
    const held = await p.db
      .selectFrom('removal_holds')
      .select(['object_key'])
      .where('released_seq', 'is', null)
      .execute();
    assert.deepEqual(
      held.map((h) => h.object_key).sort(),
      heldHosts.map((_, i) => `team-h/i${i}`),
    );
  });
  await servedBy('fresh.example.com', [pod(1), pod(2)]);
  for (const host of heldHosts) assert.equal(await who(host), pod(14), `${host} is kept while held`);
});

/** Every recorded hold, for failure messages. */
const holdRows = async (): Promise<string> =>
  JSON.stringify(await p.db.selectFrom('removal_holds').selectAll().execute());

test('25 status names the hold and is not healthy', async () => {
  const r = await portolan(['status']);
  assert.equal(r.code, 1, await holdRows());
  assert.match(r.stdout, /HELD REMOVALS/);
  assert.match(
    r.stdout,
    new RegExp(`appliance ${p.appliance('edge')}: 6 removal\\(s\\) held by the safety rule in local`),
  );
});

test('26 each held Ingress carries a RemovalHeld Warning Event', async () => {
  await within('the Events', async () => {
    const events = JSON.parse(await p.kubectl(['get', 'events', '-n', 'team-h', '-o', 'json'])) as {
      items: { reason: string; type: string; involvedObject: { name: string } }[];
    };
    const held = events.items
      .filter((e) => e.reason === 'RemovalHeld' && e.type === 'Warning')
      .map((e) => e.involvedObject.name);
    for (let i = 0; i < 6; i++) assert.ok(held.includes(`i${i}`), `Event on i${i}: ${held.join(',')}`);
  });
});

test('27 other changes keep flowing while the hold stands', async () => {
  await p.apply(endpointSlice('team-c', 'web', [pod(15)], p.echoPort));
  await servedBy('blog.example.com', [pod(15)]);
});

test('28 portolan approve removes the held objects at once', async () => {
  const started = performance.now();
  const r = await portolan([
    'approve',
    p.appliance('edge'),
    '--reason',
    'team-h was moved out of this cluster',
    '--by',
    'everyday-ops',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /released local Ingress team-h\/i0 \(removed\)/);
  assert.match(r.stdout, /applied to /);
  for (const host of heldHosts) await answers(host, 404);
  process.stdout.write(
    `# approve → held hosts gone: ${Math.round(performance.now() - started)} ms (CLI start included); ${/applied to .*/.exec(r.stdout)?.[0] ?? ''}\n`,
  );
});

test('29 history shows the hold and the approval with who and why', async () => {
  const r = await portolan(['history', p.appliance('edge')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /hold\s.*removal held.*local\/Ingress\/team-h\/i0: a relist of Ingress no longer lists 6 of/);
  assert.match(r.stdout, /release\s.*removed \(approval: everyday-ops\).*team-h was moved out/);
});

test('30 the fault ends and the namespace is deleted for real: nothing comes back, nothing is held', async () => {
  await p.kubectl(['delete', 'namespace', 'team-h', '--wait=false']);
  await fault({ action: 'clear' });
  await fault({ action: 'watch-gone', resource: 'ingresses' });
  await servedBy('fresh.example.com', [pod(1), pod(2)]);
  for (const host of heldHosts) await answers(host, 404);
  const open = await p.db.selectFrom('removal_holds').select('id').where('released_seq', 'is', null).execute();
  assert.deepEqual(open, []);
});

test("30a another namespace adds a path to a team's host: served (shared is the default), visible on both and in explain", async () => {
  await p.apply(
    namespace('team-x') +
      service('team-x', 'web', p.echoPort) +
      endpointSlice('team-x', 'web', [pod(16)], p.echoPort) +
      ingress('team-x', 'join', {
        className: 'portolan',
        rules: [{ host: 'a.example.com', paths: [{ path: '/joined', type: 'Prefix', service: 'web' }] }],
      }),
  );
  await within('the joined path', async () => assert.equal(await who('a.example.com', '/joined/x'), pod(16)));
  await within('HostSharedAcrossNamespaces on both Ingresses', async () => {
    for (const [ns, name] of [
      ['team-a', 'web'],
      ['team-x', 'join'],
    ] as const) {
      const events = JSON.parse(await p.kubectl(['get', 'events', '-n', ns, '-o', 'json'])) as {
        items: { reason: string; involvedObject: { name: string } }[];
      };
      assert.ok(
        events.items.some((e) => e.reason === 'HostSharedAcrossNamespaces' && e.involvedObject.name === name),
        `${ns}/${name}`,
      );
    }
  });
  const r = await portolan(['explain', p.appliance('edge'), 'a.example.com/joined']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /Conditions:[\s\S]*team-x\/join\s+Warning\s+HostSharedAcrossNamespaces\s+host a\.example\.com is shared: it was first claimed by namespace team-a/,
  );
  await p.kubectl(['delete', 'namespace', 'team-x', '--wait=false']);
  await within('the joined path gone', async () => assert.notEqual(await who('a.example.com', '/joined/x'), pod(16)));
});

test('31 every appliance equals its head snapshot', async () => {
  await p.settled('edge');
  await p.settled('vtm');
});

test('32 replay --verify rebuilds every snapshot of the whole day, approval included', async () => {
  const r = await portolan(['replay', '--verify']);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /verified [1-9]\d* snapshots; 0 differ/);
});
