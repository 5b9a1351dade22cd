// The audit commands read back a recorded scenario (create, scale, TLS rotation, delete, drift, failover) that
// the real planner and appliers wrote: history, show, diff, operations, explain, at, replay, status, and errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  AuditUsageError,
  type AtReport,
  type AuditCommandName,
  type DiffReport,
  type ExplainReport,
  type HistoryReport,
  type OperationsReport,
  type ReplayReport,
  type ShowReport,
  type StatusReport,
} from '@portolan/audit';
import { VtmDriver, type VtmObjects } from '@portolan/vtm-driver';
import { startVtmEmulator } from '@portolan/vtm-emulator';
import { appliedAt, appliesEpoch, appliesOf, jsonOf, snapshotsOf, webNodes } from './audit-checks.ts';
import { AuditScenario, CERT_V1, CERT_V2, type StepName } from './audit-scenario.ts';
import { OPERATOR_TOKEN } from './scenario-fleet.ts';

let s: AuditScenario;
before(async () => {
  s = await AuditScenario.record();
});
after(async () => {
  await s?.close();
});

const json = <T>(command: AuditCommandName, args: readonly string[]): Promise<T> => jsonOf<T>(s, command, args);
const step = (name: StepName) => s.step_(name);

test('history: every snapshot, apply and drift in time order, each snapshot with the archived events that caused it', async () => {
  const h = await json<HistoryReport>('history', [s.appliance]);
  const kinds = h.entries.map((e) => (e.type === 'apply' ? `apply:${e.trigger}:${e.status}` : e.type));
  assert.deepEqual(kinds, [
    'snapshot',
    'apply:snapshot:succeeded', // create
    'snapshot',
    'apply:snapshot:succeeded', // scale
    'snapshot',
    'apply:snapshot:succeeded', // TLS rotation
    'snapshot',
    'apply:snapshot:succeeded', // delete
    'drift',
    'apply:drift-correction:succeeded', // drift
    'snapshot',
    'apply:snapshot:succeeded', // failover + scale
  ]);
  const [create, scale, tls, del, failover] = snapshotsOf(h);
  assert.deepEqual(
    snapshotsOf(h).map((x) => x.id),
    (['create', 'scale', 'tls', 'delete', 'failover'] as const).map((n) => step(n).snapshot),
  );
  const objects = (e: typeof create) => e!.cause.objects.map((o) => `${o.event} ${o.object}`);
  assert.ok(
    objects(create).includes('ADDED c1/Ingress/shop/web') && objects(create).includes('ADDED c1/Secret/shop/web-tls'),
    objects(create).join('; '),
  );
  assert.deepEqual(objects(scale), ['MODIFIED c1/EndpointSlice/shop/web-1']);
  assert.deepEqual(objects(tls), ['MODIFIED c1/Secret/shop/web-tls']);
  assert.deepEqual(objects(del), ['DELETED c1/Ingress/shop/docs']);
  assert.deepEqual(objects(failover), ['MODIFIED c1/EndpointSlice/shop/web-1']);
  // Each cause names the stream range folded since the parent, and the resourceVersion of the change.
  assert.equal(scale!.cause.fromSeq, create!.cause.toSeq);
  assert.ok(
    /^\d+$/.test(scale!.cause.objects[0]!.resourceVersion) && scale!.cause.objects[0]!.seq > create!.cause.toSeq,
  );
  assert.match(scale!.traceId ?? '', /^[0-9a-f]{32}$/);
  const applies = appliesOf(h);
  assert.deepEqual(
    applies.map((a) => a.leader),
    ['replica-a', 'replica-a', 'replica-a', 'replica-a', 'replica-a', 'replica-b'],
  );
  assert.ok(applies[5]!.epoch > applies[0]!.epoch, 'the failover apply carries a newer fencing epoch');
  const drift = h.entries.find((e) => e.type === 'drift');
  assert.ok(
    drift?.type === 'drift' && drift.action === 'corrected' && drift.objects.some((o) => o.includes('shop_web_80')),
  );
  const table = await s.run('history', [s.appliance]);
  assert.match(table.stdout, /deleted c1\/Ingress\/shop\/docs@\d+/);
  assert.match(table.stdout, /drift-correction, 1 op\(s\) by replica-a/);
});

test('history --since/--until keeps only what happened in the window', async () => {
  const h = await json<HistoryReport>('history', [
    s.appliance,
    '--since',
    step('scale').after.toISOString(),
    '--until',
    step('delete').after.toISOString(),
  ]);
  assert.deepEqual(
    snapshotsOf(h).map((x) => x.id),
    [step('tls').snapshot, step('delete').snapshot],
  );
  assert.deepEqual(
    appliesOf(h).map((x) => x.id),
    [step('tls').apply, step('delete').apply],
  );
});

test('history --object keeps the snapshots whose cause names the object, with their applies; --kind keeps kinds', async () => {
  const all = await json<HistoryReport>('history', [s.appliance]);
  const docs = await json<HistoryReport>('history', [s.appliance, '--object', 'ingress SHOP/docs']);
  const kept = snapshotsOf(docs);
  assert.ok(kept.some((x) => x.id === step('create').snapshot) && kept.some((x) => x.id === step('delete').snapshot));
  assert.ok(!kept.some((x) => x.id === step('scale').snapshot), 'scaling web did not touch the docs Ingress');
  for (const x of kept)
    assert.ok(
      x.cause.objects.some((o) => o.object === 'c1/Ingress/shop/docs'),
      x.id,
    );
  assert.deepEqual(
    appliesOf(docs).map((a) => a.id),
    appliesOf(all)
      .filter((a) => kept.some((x) => x.id === a.snapshot))
      .map((a) => a.id),
  );
  assert.deepEqual(
    docs.entries.filter((e) => e.type !== 'snapshot' && e.type !== 'apply'),
    [],
  );
  const kinds = await json<HistoryReport>('history', [s.appliance, '--kind', 'apply', '--kind', 'drift']);
  assert.deepEqual(
    kinds.entries,
    all.entries.filter((e) => e.type === 'apply' || e.type === 'drift'),
  );
  const bad = await s.run('history', [s.appliance, '--kind', 'applies']);
  assert.deepEqual(
    [bad.code, bad.stderr],
    [
      1,
      `portolan history: unknown history kind "applies" (kinds: snapshot, apply, drift, hold, approval, rollback, resume)\n`,
    ],
  );
});

test('show: the desired state object by object, with its sources and (--vendor) the vendor objects', async () => {
  const r = await json<ShowReport>('show', [step('create').snapshot, '--vendor']);
  const web = r.desired.pools.find((p) => p.name.includes('web'));
  assert.deepEqual(
    web?.members.map((m) => m.address),
    ['10.1.0.1', '10.1.0.2'],
  );
  assert.equal(r.snapshot.appliance, s.appliance);
  assert.ok(
    r.vendor?.some(
      (v) => v.id.startsWith('pools/') && v.id.includes('shop_web_80') && v.detail === '10.1.0.1:8080, 10.1.0.2:8080',
    ),
  );
  const table = await s.run('show', [step('create').snapshot]);
  assert.match(
    table.stdout,
    /route\s+\S+\/web\.example\.com\/\s+web\.example\.com\/ → shop~web~80\s+c1\/Ingress\/shop\/web/,
  );
  assert.match(table.stdout, /certificate\s+\S+\s+c1\/Secret\/shop\/web-tls fp/);
});

test('diff: object-level changes and the vendor operations a push from a to b would make', async () => {
  const scale = await json<DiffReport>('diff', [step('create').snapshot, step('scale').snapshot]);
  assert.deepEqual(
    scale.objects.map((d) => `${d.change} ${d.kind} ${d.key.split('/').at(-1)}`),
    ['added member 10.1.0.3:8080', 'added member 10.1.0.4:8080'],
  );
  assert.deepEqual(
    scale.operations?.map((o) => `${o.action} ${o.objectType}`),
    ['update pools'],
  );
  assert.match(scale.operations![0]!.objectName, /shop_web_80/);
  const tls = await json<DiffReport>('diff', [step('scale').snapshot, step('tls').snapshot]);
  assert.deepEqual(
    tls.objects.map((d) => `${d.change} ${d.kind}`),
    ['changed certificate'],
  );
  assert.deepEqual(
    tls.operations?.map((o) => `${o.action} ${o.objectType}`),
    ['update ssl/server_keys'],
  );
  const del = await json<DiffReport>('diff', [step('tls').snapshot, step('delete').snapshot]);
  assert.ok(
    del.objects.some((d) => d.change === 'removed' && d.kind === 'route' && d.key.includes('docs.example.com')),
  );
  assert.ok(
    del.operations?.some((o) => o.action === 'delete' && o.objectType === 'pools' && o.objectName.includes('docs')),
  );
  const none = await s.run('diff', [step('delete').snapshot, step('delete').snapshot]);
  assert.match(none.stdout, /No object-level differences\.[\s\S]*Vendor operations: none/);
});

test('operations: what one apply sent, payloads included, each with its result; no key material', async () => {
  const scale = await json<OperationsReport>('operations', [s.appliance, step('scale').apply]);
  assert.deepEqual(
    [scale.appliance, scale.apply.id, scale.apply.snapshotId],
    [s.appliance, step('scale').apply, step('scale').snapshot],
  );
  assert.deepEqual(
    scale.operations.map((o) => `${o.result} ${o.action} ${o.objectType}`),
    ['ok update pools'],
  );
  assert.match(scale.operations[0]!.objectName, /shop_web_80/);
  // The payload as sent: the pool's node table, with the two members the scale step added.
  const sent = JSON.stringify(scale.operations[0]!.payload);
  assert.ok(sent.includes('10.1.0.3:8080') && sent.includes('10.1.0.4:8080'), sent);
  const tls = await json<OperationsReport>('operations', [s.appliance, step('tls').apply]);
  assert.deepEqual(
    tls.operations.map((o) => `${o.result} ${o.action} ${o.objectType}`),
    ['ok update ssl/server_keys'],
  );
  assert.ok(!JSON.stringify(tls).includes('PRIVATE KEY'), 'the certificate write names its Secret, never the key');
  const table = await s.run('operations', [s.appliance, step('scale').apply]);
  assert.match(
    table.stdout,
    new RegExp(
      `^Apply ${step('scale').apply} of ${s.appliance}: snapshot ${step('scale').snapshot}, epoch \\d+, leader replica-a, snapshot, succeeded`,
    ),
  );
  assert.match(table.stdout, /1\s+ok\s+update\s+pools\s+\S*shop_web_80/);
  const unknown = await s.run('operations', [s.appliance, '424242']);
  assert.deepEqual([unknown.code, unknown.stderr], [1, 'portolan operations: unknown apply "424242"\n']);
  const named = await s.run('operations', [s.appliance, 'latest']);
  assert.match(named.stderr, /unknown apply "latest" \(applies are numbered/);
  await assert.rejects(s.run('operations', [s.appliance]), AuditUsageError);
});

test('explain host/path: the Ingress, Service and EndpointSlice behind it, their resourceVersions, and when it last changed', async () => {
  const r = await json<ExplainReport>('explain', [s.appliance, 'web.example.com/checkout']);
  assert.equal(r.target.type, 'route');
  const byObject = new Map(r.objects.map((o) => [o.object, o]));
  const slice = s.latest('web-slice') as { metadata: { resourceVersion: string } };
  assert.equal(byObject.get('c1/EndpointSlice/shop/web-1')?.resourceVersion, slice.metadata.resourceVersion);
  assert.equal(byObject.get('c1/Ingress/shop/web')?.event, 'ADDED');
  assert.ok(byObject.has('c1/Service/shop/web'));
  assert.equal(r.lastChange?.snapshot, step('failover').snapshot, 'the last member change was in the failover step');
  assert.deepEqual(
    r.lastChange?.events.map((e) => `${e.event} ${e.object}`),
    ['MODIFIED c1/EndpointSlice/shop/web-1'],
  );
  assert.equal(r.lastChange?.applied?.apply, step('failover').apply);
});

test('explain vendor object: a certificate key comes from its Secret and last changed with the TLS rotation', async () => {
  const r = await json<ExplainReport>('explain', [s.appliance, 'key-c1_shop_web-tls']);
  assert.ok(r.target.type === 'vendor' && r.target.id.startsWith('ssl/server_keys/'));
  assert.ok(r.objects.some((o) => o.object === 'c1/Secret/shop/web-tls' && o.event === 'MODIFIED'));
  assert.equal(r.lastChange?.snapshot, step('tls').snapshot);
  // As of an older snapshot, the same pool last changed with the scale step.
  const pool = await json<ExplainReport>('explain', [
    s.appliance,
    'pl-shop_web_80',
    '--snapshot',
    step('tls').snapshot,
  ]);
  assert.equal(pool.lastChange?.snapshot, step('scale').snapshot);
  const unknown = await s.run('explain', [s.appliance, 'no-such-object']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no vendor object "no-such-object"/);
});

test('at: the configuration the apply log recorded after the apply in effect, for a time between two applies', async () => {
  const between = new Date((step('create').after.getTime() + (await appliedAt(s, step('scale').apply))) / 2);
  const r = await json<AtReport>('at', [s.appliance, '--time', between.toISOString()]);
  assert.equal(r.apply.id, step('create').apply);
  const row = await s.db
    .selectFrom('applies')
    .select('observed_after_hash')
    .where('id', '=', step('create').apply)
    .executeTakeFirstOrThrow();
  assert.equal(r.apply.observedAfterHash, row.observed_after_hash, 'taken from the apply log');
  assert.ok(
    r.objects.some(
      (o) => o.id.includes('shop_web_80') && o.id.startsWith('pools/') && o.detail === '10.1.0.1:8080, 10.1.0.2:8080',
    ),
  );
  assert.deepEqual(r.differencesFromPlan, []);
  const later = await json<AtReport>('at', [s.appliance, '--time', step('scale').after.toISOString()]);
  assert.ok(
    later.objects.some(
      (o) => o.id.startsWith('pools/') && o.detail === '10.1.0.1:8080, 10.1.0.2:8080, 10.1.0.3:8080, 10.1.0.4:8080',
    ),
  );
  const afterDrift = await json<AtReport>('at', [s.appliance, '--time', step('drift').after.toISOString()]);
  assert.equal(afterDrift.apply.trigger, 'drift-correction');
  const before = await s.run('at', [s.appliance, '--time', '2000-01-01T00:00:00Z']);
  assert.equal(before.code, 1);
  assert.match(
    before.stderr,
    /no apply of .* finished at or before 2000-01-01T00:00:00\.000Z \(the first apply finished at/,
  );
});

test("replay apply: rebuilds on a fresh vTM emulator what the apply log recorded for that time, with that time's certificate", async () => {
  const fresh = await startVtmEmulator({ users: { admin: 'pw' }, machines: ['vtm-1'] });
  try {
    fresh.state.put('traffic_ip_groups', 'tip-default', {
      properties: { basic: { ipaddresses: ['192.0.2.10'], machines: ['vtm-1'] } },
    });
    const time = step('create').after.toISOString();
    const r = await json<ReplayReport>('replay-apply', ['--to', fresh.url, '--time', time, '--appliance', s.appliance]);
    assert.equal(r.apply, step('create').apply);
    assert.ok(r.operations.length > 5 && r.operations.every((o) => o.ok));
    assert.equal(r.remaining, 0);
    // Independently of the command: read the fresh emulator back; the vTM driver finds nothing to change between it
    // and the recorded state, and it holds the same objects.
    const recorded = await json<AtReport>('at', [s.appliance, '--time', time]);
    const reader = new VtmDriver({ appliance: s.appliance, url: fresh.url, username: 'admin', password: 'pw' });
    const readBack = await reader.readBack(AbortSignal.timeout(10_000));
    await reader.close();
    const recordedObjects = recorded.observed as VtmObjects;
    assert.deepEqual(reader.diff(recordedObjects, readBack), []);
    assert.deepEqual(
      readBack.objects.map((o) => `${o.type}/${o.name}`),
      recordedObjects.objects.map((o) => `${o.type}/${o.name}`),
    );
    assert.deepEqual(webNodes(fresh), ['10.1.0.1:8080', '10.1.0.2:8080']);
    const key = fresh.state.list('ssl/server_keys').map((n) => fresh.state.get('ssl/server_keys', n))[0];
    assert.equal(
      key?.kind === 'json' ? (key.properties['basic'] as { public?: string }).public : null,
      CERT_V1,
      'the certificate of that time, not the rotated one',
    );
    assert.equal(
      s.emulator.state
        .list('ssl/server_keys')
        .map((n) => s.emulator.state.get('ssl/server_keys', n))
        .map((k) => (k?.kind === 'json' ? (k.properties['basic'] as { public?: string }).public : null))[0],
      CERT_V2,
    );
  } finally {
    await fresh.close();
  }
  const live = await s.run('replay-apply', ['--to', s.emulator.url, '--time', 'now']);
  assert.equal(live.code, 1);
  assert.match(live.stderr, /is the live address of .*--force/);
});

test('status: watch freshness, leader and epoch, apply lag, stream and consumer positions', async () => {
  const r = await json<StatusReport>('status', []);
  assert.deepEqual(r.problems, [], JSON.stringify(r));
  const c1 = r.clusters.find((c) => c.cluster === 'c1');
  assert.equal(c1?.stale, false);
  assert.equal(c1?.synced, true);
  const a = r.appliances.find((x) => x.appliance === s.appliance);
  assert.equal(a?.leader, 'replica-b');
  assert.equal(a?.epoch, appliesEpoch(await json<HistoryReport>('history', [s.appliance])));
  assert.equal(a?.lastAppliedSnapshot, step('failover').snapshot);
  assert.equal(a?.lag.snapshots, 0);
  assert.equal(r.stream.lastSeq, r.stream.archivedSeq, JSON.stringify(r.stream));
  assert.deepEqual(
    r.stream.consumers.map((c) => [c.consumer, c.lag]),
    [['planner', 0]],
  );
});

test('unknown appliances and snapshots are clear errors that name them; bad flags are usage errors', async () => {
  const a = await s.run('history', ['lb-9']);
  assert.deepEqual(
    [a.code, a.stderr],
    [1, `portolan history: unknown appliance "lb-9" (the fleet config names: ${s.appliance})\n`],
  );
  const b = await s.run('show', ['424242']);
  assert.deepEqual([b.code, b.stderr], [1, 'portolan show: unknown snapshot "424242"\n']);
  const c = await s.run('rollback', [s.appliance, '--to', 'latest', '--yes', '--reason', 'bad deploy']);
  assert.equal(c.code, 1);
  assert.match(c.stderr, /unknown snapshot "latest"/);
  await assert.rejects(
    s.run('at', [s.appliance, '--time', 'yesterday-ish']),
    (e: unknown) => e instanceof AuditUsageError && /cannot read "yesterday-ish" as a time/.test(e.message),
  );
  await assert.rejects(s.run('history', []), AuditUsageError);
});

test('the portolan binary runs the commands (JSON history; rollback refused without a terminal)', async () => {
  const exec = promisify(execFile);
  const root = path.resolve(import.meta.dirname, '../..');
  const bin = path.join(root, 'packages/cli/bin/portolan.js');
  const node = path.join(root, 'node_modules/.bin/node');
  const { stdout } = await exec(node, [bin, 'history', s.appliance, '--config', s.configFile, '-o', 'json'], {
    cwd: root,
  });
  assert.ok((JSON.parse(stdout) as HistoryReport).entries.length >= 12);
  const refused = await exec(
    node,
    [bin, 'rollback', s.appliance, '--to', step('create').snapshot, '--reason', 'r', '--config', s.configFile],
    { cwd: root, env: { ...process.env, PORTOLAN_TOKEN: OPERATOR_TOKEN } },
  ).catch((e: { code: number; stderr: string }) => e);
  assert.equal((refused as { code: number }).code, 1);
  assert.match((refused as { stderr: string }).stderr, /refusing to roll back without --yes/);
  const usage = await exec(node, [bin, 'at', s.appliance, '--config', s.configFile], { cwd: root }).catch(
    (e: { code: number; stderr: string }) => e,
  );
  assert.equal((usage as { code: number }).code, 2);
  assert.match((usage as { stderr: string }).stderr, /--time is required[\s\S]*Usage: portolan at/);
});
