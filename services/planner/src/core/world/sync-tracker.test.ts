import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeKind } from '@portolan/kube-model';
import { SyncTracker } from './sync-tracker.ts';
import type { PlannerConfig } from '../planner.ts';

const config = {
  clusters: [{ name: 'a' }, { name: 'b' }],
  appliances: [{ name: 'both' }, { name: 'only-a', clusters: ['a'] }],
} as unknown as PlannerConfig;
const kinds: KubeKind[] = ['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Secret', 'Node'];
const marker = (cluster: string, kind: KubeKind, chunkIndex = 0, chunkCount = 1) => ({
  cluster,
  kind,
  generation: 1,
  resourceVersion: '1',
  chunkIndex,
  chunkCount,
  keys: [],
});

test('an appliance is synced only once every kind of every cluster it serves has a complete list', () => {
  const t = new SyncTracker(config);
  for (const k of kinds.slice(0, 5)) t.noteMarker(marker('a', k));
  assert.equal(t.isApplianceSynced('only-a'), false, 'Node is missing');
  t.noteMarker(marker('a', 'Node', 0, 2));
  assert.equal(t.isApplianceSynced('only-a'), false, 'one chunk of two');
  t.noteMarker(marker('a', 'Node', 1, 2));
  assert.equal(t.isApplianceSynced('only-a'), true);
  assert.equal(t.isApplianceSynced('both'), false, 'cluster b has not listed');
  for (const k of kinds) t.noteMarker(marker('b', k));
  assert.equal(t.isApplianceSynced('both'), true);
});

test('a kind beyond the first six is needed once its watcher has begun listing it, and not before', () => {
  const t = new SyncTracker(config);
  for (const k of kinds) t.noteMarker(marker('a', k));
  assert.equal(t.isApplianceSynced('only-a'), true, 'an archive with no Gateway API markers syncs as before');
  t.noteMarker(marker('a', 'HTTPRoute', 0, 2));
  assert.equal(t.isApplianceSynced('only-a'), false, 'HTTPRoute has begun listing and is not complete');
  t.noteMarker(marker('a', 'HTTPRoute', 1, 2));
  assert.equal(t.isApplianceSynced('only-a'), true);
  t.noteMarker({ ...marker('a', 'Gateway', 0, 2), generation: 2 });
  assert.equal(t.isApplianceSynced('only-a'), false, 'Gateway has begun listing');
  t.noteMarker(marker('a', 'Namespace'));
  assert.equal(t.isApplianceSynced('only-a'), false, 'Gateway is still one chunk short');
  t.noteMarker({ ...marker('a', 'Gateway', 1, 2), generation: 2 });
  assert.equal(t.isApplianceSynced('only-a'), true);
});
