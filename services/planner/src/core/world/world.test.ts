import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeListMarker } from '@portolan/kube-model';
import * as f from '../../testing/fixtures.ts';
import { World } from './world.ts';
import { compareResourceVersions } from './resource-version.ts';

const svc = (name: string, rv: string) => {
  const o = f.service(name, [[undefined, 80]]);
  (o['metadata'] as Record<string, unknown>)['resourceVersion'] = rv;
  return o;
};
const ev = (type: 'ADDED' | 'MODIFIED' | 'DELETED', name: string, rv: string, generation = 0) => ({
  cluster: 'c1',
  kind: 'Service' as const,
  type,
  object: svc(name, rv),
  generation,
});
const marker = (generation: number, rv: string, keys: string[], chunkIndex = 0, chunkCount = 1): KubeListMarker => ({
  cluster: 'c1',
  kind: 'Service',
  generation,
  resourceVersion: rv,
  chunkIndex,
  chunkCount,
  keys,
});
const names = (w: World): string[] => [...w.services('c1')].map((s) => s.metadata.name).sort();

test('resourceVersions compare numerically when decimal', () => {
  assert.equal(compareResourceVersions('9', '10'), -1);
  assert.equal(compareResourceVersions('100', '99'), 1);
  assert.equal(compareResourceVersions('007', '7'), 0);
  assert.equal(compareResourceVersions('', '1'), -1);
});

test('an older event arriving late never overwrites a newer one, and a delete is not undone by a stale add', () => {
  const w = new World();
  assert.ok(w.apply(ev('ADDED', 'a', '5')));
  assert.equal(w.apply(ev('MODIFIED', 'a', '4')), null);
  assert.ok(w.apply(ev('DELETED', 'a', '6')));
  assert.equal(w.apply(ev('ADDED', 'a', '5')), null);
  assert.deepEqual(names(w), []);
  assert.ok(w.apply(ev('ADDED', 'a', '7')), 'a re-created object (newer version) comes back');
  assert.deepEqual(names(w), ['a']);
});

test('the same event twice changes the world once', () => {
  const w = new World();
  assert.ok(w.apply(ev('ADDED', 'a', '5')));
  assert.equal(w.apply(ev('ADDED', 'a', '5')), null);
});

test('a completed list marker deletes what the list lacked (deletes missed while nobody watched)', () => {
  const w = new World();
  w.apply(ev('ADDED', 'a', '5'));
  w.apply(ev('ADDED', 'b', '6'));
  const changes = w.applyListMarker(marker(1, '10', ['default/a']));
  assert.deepEqual(
    changes.map((c) => [c.name, c.after]),
    [['b', null]],
  );
  assert.deepEqual(names(w), ['a']);
});

test('a chunked marker deletes only once every chunk of its generation has arrived, and redelivered chunks are harmless', () => {
  const w = new World();
  for (const [n, rv] of [
    ['a', '5'],
    ['b', '6'],
    ['c', '7'],
  ] as const)
    w.apply(ev('ADDED', n, rv));
  assert.deepEqual(w.applyListMarker(marker(1, '10', ['default/a'], 0, 2)), []);
  assert.deepEqual(w.applyListMarker(marker(1, '10', ['default/a'], 0, 2)), []);
  assert.deepEqual(names(w), ['a', 'b', 'c'], 'nothing deleted on a partial list');
  assert.deepEqual(
    w.applyListMarker(marker(1, '10', ['default/b'], 1, 2)).map((c) => c.name),
    ['c'],
  );
  assert.deepEqual(
    w.applyListMarker(marker(1, '10', ['default/b'], 1, 2)),
    [],
    'a completed generation is not applied twice',
  );
  assert.deepEqual(names(w), ['a', 'b']);
});

test('lists are ordered by resourceVersion: a newer list applies while an older one is incomplete, and the older one then changes nothing', () => {
  const w = new World();
  for (const [n, rv] of [
    ['a', '5'],
    ['b', '6'],
  ] as const)
    w.apply(ev('ADDED', n, rv));
  w.applyListMarker(marker(1, '10', ['default/a'], 0, 2));
  assert.deepEqual(
    w.applyListMarker(marker(2, '12', ['default/b'])).map((c) => c.name),
    ['a'],
  );
  assert.deepEqual(w.applyListMarker(marker(1, '10', [], 1, 2)), []);
  assert.deepEqual(names(w), ['b']);
});

test('two watcher replicas interleaving chunks of their lists: both complete, generation numbers do not matter', () => {
  const w = new World();
  for (const [n, rv] of [
    ['a', '5'],
    ['b', '6'],
    ['c', '7'],
  ] as const)
    w.apply(ev('ADDED', n, rv));
  // Replica B (high generation) lists at rv 20 without c; replica A (low generation, restarted earlier) at rv 30 without b.
  assert.deepEqual(w.applyListMarker(marker(2000, '20', ['default/a'], 0, 2)), []);
  assert.deepEqual(w.applyListMarker(marker(1000, '30', ['default/a'], 0, 2)), []);
  assert.deepEqual(
    w.applyListMarker(marker(2000, '20', ['default/b'], 1, 2)).map((c) => c.name),
    ['c'],
  );
  assert.deepEqual(
    w.applyListMarker(marker(1000, '30', ['default/c'], 1, 2)).map((c) => c.name),
    ['b'],
    'the lower generation with the newer list still applies',
  );
  assert.deepEqual(names(w), ['a']);
});

test('an object changed after the list (newer resourceVersion) survives a marker that lacks it', () => {
  const w = new World();
  w.apply(ev('ADDED', 'a', '5'));
  w.apply(ev('ADDED', 'late', '11'));
  assert.deepEqual(
    w.applyListMarker(marker(1, '10', [])).map((c) => c.name),
    ['a'],
  );
  assert.deepEqual(names(w), ['late']);
  assert.equal(
    w.apply(ev('ADDED', 'a', '4')),
    null,
    'after a relist, an older event for a key the list lacked is stale',
  );
});

test('EndpointSlices are indexed by their Service, following label changes', () => {
  const w = new World();
  w.apply({
    cluster: 'c1',
    kind: 'EndpointSlice',
    type: 'ADDED',
    object: f.slice('x-1', 'x', undefined, 80, [['10.0.0.1']]),
  });
  assert.equal([...w.slicesOfService('c1', 'default', 'x')].length, 1);
  w.apply({
    cluster: 'c1',
    kind: 'EndpointSlice',
    type: 'MODIFIED',
    object: f.slice('x-1', 'y', undefined, 80, [['10.0.0.1']]),
  });
  assert.equal([...w.slicesOfService('c1', 'default', 'x')].length, 0);
  assert.equal([...w.slicesOfService('c1', 'default', 'y')].length, 1);
  w.apply({ cluster: 'c1', kind: 'EndpointSlice', type: 'DELETED', object: f.slice('x-1', 'y', undefined, 80, []) });
  assert.equal([...w.slicesOfService('c1', 'default', 'y')].length, 0);
});

test('garbage events are ignored, never thrown', () => {
  const w = new World();
  assert.equal(w.apply({ cluster: 'c1', kind: 'Ingress', type: 'ADDED', object: null }), null);
  assert.equal(w.apply({ cluster: 'c1', kind: 'Ingress', type: 'ADDED', object: { metadata: { name: 7 } } }), null);
  assert.deepEqual(w.applyListMarker({ ...marker(1, '1', []), chunkIndex: 5, chunkCount: 2 }), []);
});
