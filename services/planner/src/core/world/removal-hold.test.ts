import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeKind, KubeListMarker, KubeWatchEvent } from '@portolan/kube-model';
import * as f from '../../testing/fixtures.ts';
import { Planner } from '../planner.ts';
import {
  DEFAULT_REMOVAL_POLICY,
  judgeUnexplainedRemovals,
  removalWeight,
  strictestPolicy,
  type RemovalPolicy,
} from './removal-hold.ts';
import { World } from './world.ts';

const MINUTE = 60_000;
const policy: RemovalPolicy = DEFAULT_REMOVAL_POLICY;
const ing = (name: string, hosts: number, namespace = 'team') =>
  f.ingress({
    name,
    namespace,
    rules: Array.from({ length: hosts }, (_, i) => f.rule(`${name}-${i}.example.com`, ['/', 'Prefix', 'web', 80])),
  });
const event = (
  type: KubeWatchEvent['type'],
  object: Record<string, unknown>,
  extra: Partial<KubeWatchEvent> = {},
): KubeWatchEvent => ({ cluster: 'c1', kind: object['kind'] as KubeKind, type, object, ...extra });
let generation = 0;
const relist = (kind: KubeKind, keys: readonly string[], atMs: number, rv = f.nextRv()): KubeListMarker => ({
  cluster: 'c1',
  kind,
  generation: ++generation,
  resourceVersion: rv,
  chunkIndex: 0,
  chunkCount: 1,
  keys,
  observedAtMs: atMs,
});
const ingressNames = (w: World): string[] => [...w.ingresses('c1')].map((i) => i.metadata.name).sort();

/** Ten Ingresses of one host each, team/i0 … team/i9. */
function tenIngresses(): World {
  const w = new World();
  for (let i = 0; i < 10; i++) w.apply(event('ADDED', ing(`i${i}`, 1)));
  return w;
}
const keys = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `team/i${from + i}`);

test('the verdict: held only above the fraction AND at or above the floor', () => {
  const table: [gone: number, total: number, held: boolean][] = [
    [3, 10, false], // 30 %: not more than the fraction
    [4, 10, false], // 40 %, but below the floor of 5
    [5, 10, true],
    [10, 10, true], // a whole kind vanishing
    [4, 4, false], // a whole kind of four: below the floor
    [40, 200, false], // 20 %
    [0, 0, false],
  ];
  for (const [gone, total, held] of table)
    assert.equal(judgeUnexplainedRemovals('Ingress', gone, total, policy) !== null, held, `${gone} of ${total}`);
  assert.match(
    judgeUnexplainedRemovals('EndpointSlice', 9, 10, policy)!,
    /no longer lists 9 of 10 endpoints \(90%; limit 30% and 5\) with no DELETED event/,
  );
});

test('weights count hosts of an Ingress (the default backend as one) and endpoints of a slice', () => {
  assert.equal(
    removalWeight('Ingress', {
      kind: 'Ingress',
      metadata: { name: 'x', namespace: 'n' },
      spec: { rules: [{ host: 'a' }, { host: 'b' }, { host: 'a' }] },
    } as never),
    2,
  );
  assert.equal(
    removalWeight('Ingress', {
      kind: 'Ingress',
      metadata: { name: 'x', namespace: 'n' },
      spec: { defaultBackend: {} },
    } as never),
    1,
  );
  assert.equal(
    removalWeight('EndpointSlice', {
      kind: 'EndpointSlice',
      metadata: { name: 's', namespace: 'n' },
      endpoints: [{ addresses: ['1'] }, { addresses: ['2', '3'] }],
      ports: [],
    } as never),
    3,
  );
  assert.equal(removalWeight('Service', {} as never), 1);
  assert.deepEqual(
    strictestPolicy([
      { maxRemovalFraction: 0.3, minRemovals: 5, relistConfirmMs: 1 },
      { maxRemovalFraction: 0.5, minRemovals: 2, relistConfirmMs: 9 },
    ]),
    { maxRemovalFraction: 0.3, minRemovals: 2, relistConfirmMs: 9 },
  );
  assert.equal(strictestPolicy([]), null);
});

test('a relist that loses a few objects removes them at once; one that loses too many holds every one of them', () => {
  const w = tenIngresses();
  assert.deepEqual(
    w
      .applyListMarker(relist('Ingress', keys(0, 8), 1000), policy)
      .map((c) => c.name)
      .sort(),
    ['i8', 'i9'],
    '2 of 10: removed',
  );
  assert.deepEqual(w.takeHoldTransitions(), []);
  const changes = w.applyListMarker(relist('Ingress', keys(0, 2), 2000), policy);
  assert.deepEqual(changes, [], '6 of 8 hosts gone with no DELETED: held, nothing removed');
  assert.deepEqual(ingressNames(w), ['i0', 'i1', 'i2', 'i3', 'i4', 'i5', 'i6', 'i7'], 'held objects stay planned');
  assert.deepEqual(
    w.heldRemovals().map((h) => [h.key, h.sinceMs]),
    keys(2, 8).map((k) => [k, 2000]),
  );
  assert.deepEqual(
    w.takeHoldTransitions().map((t) => [t.type, t.hold.key]),
    keys(2, 8).map((k) => ['held', k]),
  );
});

test('a hold never blocks the rest: new objects and updates in the same batch go through', () => {
  const w = tenIngresses();
  w.applyListMarker(relist('Ingress', keys(0, 3), 1000), policy);
  assert.equal(w.heldRemovals().length, 7);
  assert.ok(w.apply(event('ADDED', ing('new', 2))), 'an addition is folded');
  assert.ok(w.apply(event('MODIFIED', ing('i0', 3))), 'an update is folded');
  assert.equal(w.get('c1', 'Ingress', 'team', 'i0')?.spec.rules?.length, 3);
  assert.ok(ingressNames(w).includes('new'));
});

test('Kubernetes ends a hold: a DELETED event removes the object, its return keeps it', () => {
  const w = tenIngresses();
  w.applyListMarker(relist('Ingress', keys(0, 2), 1000), policy);
  w.takeHoldTransitions();
  const gone = w.apply(event('DELETED', ing('i2', 1)));
  assert.equal(gone?.after, null, 'an explicit delete is applied');
  assert.ok(w.apply(event('MODIFIED', ing('i3', 1))), 'the object came back with a newer version');
  assert.deepEqual(
    w.takeHoldTransitions().map((t) => t.type === 'released' && [t.hold.key, t.release.by, t.removed]),
    [
      ['team/i2', 'kubernetes', true],
      ['team/i3', 'kubernetes', false],
    ],
  );
  assert.ok(!w.heldRemovals().some((h) => h.key === 'team/i2' || h.key === 'team/i3'));
  assert.ok(ingressNames(w).includes('i3') && !ingressNames(w).includes('i2'));
});

test('a later relist confirms a held removal only after the confirmation time; one that lists it again ends the hold', () => {
  const w = tenIngresses();
  w.applyListMarker(relist('Ingress', keys(0, 2), 0), policy);
  w.takeHoldTransitions();
  assert.deepEqual(
    w.applyListMarker(relist('Ingress', keys(0, 3), 4 * MINUTE), policy),
    [],
    'four minutes on: still held',
  );
  assert.deepEqual(
    w.takeHoldTransitions().map((t) => t.type === 'released' && [t.hold.key, t.release.by, t.removed]),
    [['team/i2', 'relist', false]],
    'i2 listed again: kept',
  );
  const removed = w.applyListMarker(relist('Ingress', keys(0, 3), 5 * MINUTE), policy);
  assert.deepEqual(
    removed.map((c) => c.name).sort(),
    ['i3', 'i4', 'i5', 'i6', 'i7', 'i8', 'i9'],
    'five minutes on: confirmed and removed',
  );
  assert.deepEqual(w.heldRemovals(), []);
  assert.deepEqual(ingressNames(w), ['i0', 'i1', 'i2']);
});

test('an approval carries out the held removals of the clusters it names, and records who and why', () => {
  const w = tenIngresses();
  w.applyListMarker(relist('Ingress', keys(0, 2), 1000), policy);
  w.takeHoldTransitions();
  assert.deepEqual(
    w.approveHolds(new Set(['c2']), { by: 'approval', approvedBy: 'ops', reason: 'x', approvalId: 'a0' }),
    [],
    'another cluster: nothing',
  );
  const changes = w.approveHolds(new Set(['c1']), {
    by: 'approval',
    approvedBy: 'alice',
    reason: 'team torn down',
    approvalId: 'a1',
  });
  assert.deepEqual(
    changes.map((c) => c.name),
    ['i2', 'i3', 'i4', 'i5', 'i6', 'i7', 'i8', 'i9'],
  );
  assert.deepEqual(ingressNames(w), ['i0', 'i1']);
  const releases = w.takeHoldTransitions();
  assert.equal(releases.length, 8);
  assert.ok(
    releases.every(
      (t) => t.type === 'released' && t.release.by === 'approval' && t.release.approvedBy === 'alice' && t.removed,
    ),
  );
});

test('a delete the watcher inferred from its relist is left to the list marker, where the rule judges it', () => {
  const w = tenIngresses();
  for (let i = 2; i < 10; i++)
    assert.equal(w.apply(event('DELETED', ing(`i${i}`, 1), { noticedByRelist: true })), null);
  assert.equal(ingressNames(w).length, 10);
  w.applyListMarker(relist('Ingress', keys(0, 2), 1000), policy);
  assert.equal(w.heldRemovals().length, 8);
});

test('without a policy (no appliance serves the cluster) a relist removes what it lacks', () => {
  const w = tenIngresses();
  assert.equal(w.applyListMarker(relist('Ingress', [], 1000), null).length, 10);
  assert.deepEqual(w.heldRemovals(), []);
});

test("endpoints are weighed: a slice holding most of a cluster's endpoints is held, a small one is not", () => {
  const w = new World();
  const eps = (n: number, base: number): f.Ep[] => Array.from({ length: n }, (_, i) => [`10.0.${base}.${i + 1}`]);
  w.apply(event('ADDED', f.slice('big', 'web', undefined, 80, eps(9, 1), { namespace: 'shop' })));
  w.apply(event('ADDED', f.slice('small', 'api', undefined, 80, eps(1, 2), { namespace: 'shop' })));
  w.apply(event('ADDED', f.slice('other', 'db', undefined, 80, eps(2, 3), { namespace: 'shop' })));
  assert.equal(
    w.applyListMarker(relist('EndpointSlice', ['shop/big', 'shop/other'], 1000), policy).length,
    1,
    '1 of 12 endpoints: removed',
  );
  assert.equal(w.applyListMarker(relist('EndpointSlice', ['shop/other'], 2000), policy).length, 0, '9 of 11: held');
  assert.deepEqual(
    w.heldRemovals().map((h) => h.key),
    ['shop/big'],
  );
});

test('the planner keeps a held Ingress planned, plans the rest of the batch, and drops it on approval', () => {
  const config = f.fleet([{ name: 'c1' }], [f.appliance('edge', 'haproxy')]);
  const planner = new Planner(config);
  planner.applyEvent(event('ADDED', f.ingressClass('portolan', 'portolan.dev/ingress-controller')));
  for (let i = 0; i < 8; i++) planner.applyEvent(event('ADDED', ing(`i${i}`, 1)));
  planner.planDirty();
  const hostsOf = (): string[] =>
    planner
      .desiredState('edge')!
      .virtualServices.flatMap((vs) => vs.routes.map((r) => r.host))
      .sort();
  const before = hostsOf();
  assert.equal(before.length, 8);
  planner.applyListMarker(relist('Ingress', keys(0, 1), 1000));
  planner.applyEvent(event('ADDED', ing('fresh', 1)));
  planner.planDirty();
  assert.deepEqual(hostsOf(), [...before, 'fresh-0.example.com'].sort(), 'held hosts kept, the new one added');
  assert.equal(planner.heldRemovals().length, 7);
  assert.equal(
    planner.approveHolds({ appliance: 'nope', approvedBy: 'a', reason: 'r', approvalId: '1' }),
    0,
    'an unknown appliance releases nothing',
  );
  assert.equal(planner.approveHolds({ appliance: 'edge', approvedBy: 'a', reason: 'r', approvalId: '2' }), 7);
  planner.planDirty();
  assert.deepEqual(hostsOf(), ['fresh-0.example.com', 'i0-0.example.com']);
  assert.deepEqual(planner.appliancesServing('c1'), ['edge']);
});

test('the policy comes from the strictest appliance serving the cluster', () => {
  const config = f.fleet(
    [{ name: 'c1' }, { name: 'c2' }],
    [
      f.appliance('edge', 'haproxy', {
        clusters: ['c1'],
        safety: { maxRemovalFraction: 0.9, minRemovals: 1, relistConfirmSeconds: 60 },
      }),
      f.appliance('lb', 'haproxy', { clusters: ['c2'] }),
    ],
  );
  const planner = new Planner(config);
  planner.applyEvent(event('ADDED', ing('a', 1)));
  planner.applyEvent(event('ADDED', ing('b', 1)));
  planner.applyEvent(event('ADDED', ing('c', 1)));
  // c1 (edge: more than 90 %): losing 2 of 3 is removed at once.
  assert.equal(planner.applyListMarker(relist('Ingress', ['team/a'], 1000)), 2);
  assert.deepEqual(planner.heldRemovals(), []);
});
