// The day, part 3 (steps 23–32): a relist loses a team's Ingresses, the removal is held and approved, hosts are
// shared across namespaces, and the whole day replays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { answers, fault, p, pod, portolan, servedBy, who, within } from '../everyday-day.ts';
import { endpointSlice, ingress, namespace, service } from '../manifests.ts';

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
    // The operator token `portolan up` keeps beside the fleet config: its holder is the actor recorded.
    '--token-file',
    path.join(path.dirname(p.fleetConfig), 'operator.token'),
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /released local Ingress team-h\/i0 \(removed\)/);
  const applied = /applied to \S+ in snapshot (\d+)/.exec(r.stdout);
  assert.ok(applied !== null, r.stdout);
  // The snapshot the leader applied for the approval routes none of them. (The Ingresses still exist in Kubernetes —
  // the fault only hides them from lists — so clearing the status Portolan wrote on them is a watch event that reports
  // them again, and they come back, served from a spare in milliseconds; step 30 deletes them for real.)
  const shown = await portolan(['show', applied[1]!, '-o', 'json']);
  assert.equal(shown.code, 0, shown.stderr);
  const report = JSON.parse(shown.stdout) as { desired: { virtualServices: { routes: { host: string }[] }[] } };
  const routed = report.desired.virtualServices
    .flatMap((vs) => vs.routes.map((route) => route.host))
    .filter((host) => heldHosts.includes(host));
  assert.deepEqual(routed, [], 'the approved removal is in the applied snapshot');
  process.stdout.write(
    `# approve → removal applied: ${Math.round(performance.now() - started)} ms (CLI start included); ${applied[0]}\n`,
  );
});

test('29 history shows the hold and the approval with who and why', async () => {
  const r = await portolan(['history', p.appliance('edge')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /hold\s.*removal held.*local\/Ingress\/team-h\/i0: a relist of Ingress no longer lists 6 of/);
  assert.match(r.stdout, /release\s.*removed \(approval: \S+ \(token\)\).*team-h was moved out/);
  assert.match(r.stdout, /approval\s.*by \S+ \(token\)\s+approval seq \d+: team-h was moved out/);
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
