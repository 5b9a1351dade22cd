// Fidelity suite, collections: the simulator against the API-concepts rules clients depend on
// (https://kubernetes.io/docs/reference/using-api/api-concepts/): lists and pagination, watches, namespaces,
// limits and injected faults.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { cm, cmPath, fidelityFixture } from './testing/fidelity-fixture.ts';
import { call, openWatch } from './testing/sim-client.ts';

const fx = fidelityFixture();

describe('list and pagination', () => {
  before(() => {
    fx.sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'page' } });
    for (const n of ['p3', 'p1', 'p5', 'p2', 'p4']) fx.sim.objects.create(cm(n, {}, 'page'));
  });
  const names = (body: { items: { metadata: { name: string } }[] }) => body.items.map((i) => i.metadata.name);
  it('lists in key order with the list resourceVersion; items carry no kind/apiVersion (like typed lists)', async () => {
    const res = await call(fx.sim, 'GET', cmPath('page'));
    assert.equal(res.body.kind, 'ConfigMapList');
    assert.deepEqual(names(res.body), ['p1', 'p2', 'p3', 'p4', 'p5']);
    assert.equal(res.body.metadata.resourceVersion, String(fx.sim.store.resourceVersion));
    assert.equal(res.body.items[0].kind, undefined);
  });
  it('pages with limit/continue over one consistent snapshot, with remainingItemCount', async () => {
    const first = await call(fx.sim, 'GET', `${cmPath('page')}?limit=2`);
    assert.deepEqual(names(first.body), ['p1', 'p2']);
    assert.equal(first.body.metadata.remainingItemCount, 3);
    fx.sim.objects.create(cm('p0', {}, 'page'));
    fx.sim.objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'page', name: 'p4' });
    const second = await call(fx.sim, 'GET', `${cmPath('page')}?limit=2&continue=${first.body.metadata.continue}`);
    assert.deepEqual(names(second.body), ['p3', 'p4']);
    assert.equal(second.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
    const third = await call(fx.sim, 'GET', `${cmPath('page')}?limit=2&continue=${second.body.metadata.continue}`);
    assert.deepEqual(names(third.body), ['p5']);
    assert.equal(third.body.metadata.continue, undefined);
  });
  it('answers an expired continue token with 410 Expired and an inconsistent-continue token', async () => {
    const first = await call(fx.sim, 'GET', `${cmPath('page')}?limit=2`);
    assert.deepEqual(names(first.body), ['p0', 'p1']);
    fx.sim.objects.create(cm('p9', {}, 'page'));
    fx.sim.faults.compactHistory();
    const expired = await call(fx.sim, 'GET', `${cmPath('page')}?limit=2&continue=${first.body.metadata.continue}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.body.reason, 'Expired');
    assert.equal(typeof expired.body.metadata.continue, 'string');
    const resumed = await call(fx.sim, 'GET', `${cmPath('page')}?limit=10&continue=${expired.body.metadata.continue}`);
    assert.deepEqual(names(resumed.body), ['p2', 'p3', 'p5', 'p9']);
  });
  it('serves resourceVersionMatch=Exact from history, 410 once compacted', async () => {
    const rv = fx.sim.store.resourceVersion;
    fx.sim.objects.create(cm('exact', {}, 'page'));
    const exact = await call(fx.sim, 'GET', `${cmPath('page')}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(names(exact.body).includes('exact'), false);
    fx.sim.faults.compactHistory();
    assert.equal(
      (await call(fx.sim, 'GET', `${cmPath('page')}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status,
      410,
    );
  });
});

// This describe only groups short, independent cases of one API rule: its length is their number.
describe('watch', () => {
  before(() => fx.sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'w' } }));
  it('replays changes after a resourceVersion in order, then streams live ones (DELETED carries the delete RV)', async () => {
    const start = fx.sim.store.resourceVersion;
    const a = fx.sim.objects.create(cm('wa', {}, 'w'));
    fx.sim.objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'w', name: 'wa' },
      'application/merge-patch+json',
      { data: { k: 'changed' } },
    );
    const watch = openWatch(fx.sim, `${cmPath('w')}?watch=true&resourceVersion=${start}`);
    await watch.waitFor((l) => l.length >= 2);
    fx.sim.objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'w', name: 'wa' });
    await watch.waitFor((l) => l.length >= 3);
    watch.close();
    assert.deepEqual(
      watch.lines.map((l) => l.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    const last = watch.lines[2] as { object: { metadata: { resourceVersion: string; uid: string } } };
    assert.equal(last.object.metadata.resourceVersion, String(fx.sim.store.resourceVersion));
    assert.equal(last.object.metadata.uid, a.metadata?.uid);
  });
  it('sends the current state as ADDED when no resourceVersion is given', async () => {
    fx.sim.objects.create(cm('w1', {}, 'w'));
    const watch = openWatch(fx.sim, `${cmPath('w')}?watch=1`);
    await watch.waitFor((l) => l.length >= 1);
    watch.close();
    assert.deepEqual(
      watch.lines.map((l) => [l.type, 'object' in l ? l.object.metadata.name : '']),
      [['ADDED', 'w1']],
    );
  });
  it('turns label changes into ADDED/DELETED for a selector-filtered watch', async () => {
    const start = fx.sim.store.resourceVersion;
    fx.sim.objects.create(cm('lab', { team: 'a' }, 'w'));
    fx.sim.objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'w', name: 'lab' },
      'application/merge-patch+json',
      { metadata: { labels: { team: 'b' } } },
    );
    fx.sim.objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'w', name: 'lab' },
      'application/merge-patch+json',
      { metadata: { labels: { team: 'a' } } },
    );
    const watch = openWatch(fx.sim, `${cmPath('w')}?watch=true&resourceVersion=${start}&labelSelector=team%3Da`);
    await watch.waitFor((l) => l.length >= 3);
    watch.close();
    assert.deepEqual(
      watch.lines.map((l) => l.type),
      ['ADDED', 'DELETED', 'ADDED'],
    );
  });
  it('answers a watch from a compacted resourceVersion with an in-stream ERROR 410 and ends it', async () => {
    const old = fx.sim.store.resourceVersion;
    fx.sim.objects.create(cm('gone', {}, 'w'));
    fx.sim.faults.compactHistory();
    const watch = openWatch(fx.sim, `${cmPath('w')}?watch=true&resourceVersion=${old}`);
    assert.equal(await watch.status, 200);
    await watch.ended;
    assert.equal(watch.lines.length, 1);
    const line = watch.lines[0] as { type: string; object: { kind: string; code: number; reason: string } };
    assert.deepEqual(
      [line.type, line.object.kind, line.object.code, line.object.reason],
      ['ERROR', 'Status', 410, 'Expired'],
    );
  });
  it('sends BOOKMARKs with the current resourceVersion only when allowWatchBookmarks is set', async () => {
    const rv = fx.sim.store.resourceVersion;
    const withBookmarks = openWatch(fx.sim, `${cmPath('w')}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`);
    const without = openWatch(fx.sim, `${cmPath('w')}?watch=true&resourceVersion=${rv}`);
    await withBookmarks.waitFor((l) => l.filter((x) => x.type === 'BOOKMARK').length >= 2);
    withBookmarks.close();
    without.close();
    const bookmark = withBookmarks.lines[0] as {
      object: { kind: string; apiVersion: string; metadata: { resourceVersion: string } };
    };
    assert.deepEqual(
      [bookmark.object.kind, bookmark.object.apiVersion, bookmark.object.metadata.resourceVersion],
      ['ConfigMap', 'v1', String(rv)],
    );
    assert.deepEqual(without.lines, []);
  });
  it('ends the stream after timeoutSeconds', async () => {
    const started = Date.now();
    const watch = openWatch(
      fx.sim,
      `${cmPath('w')}?watch=true&resourceVersion=${fx.sim.store.resourceVersion}&timeoutSeconds=1`,
    );
    await watch.ended;
    assert.ok(Date.now() - started >= 900);
  });
  it('sendInitialEvents streams the state then a BOOKMARK marked initial-events-end', async () => {
    const watch = openWatch(
      fx.sim,
      `${cmPath('w')}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    await watch.waitFor((l) => l.some((x) => x.type === 'BOOKMARK'));
    watch.close();
    const types = watch.lines.map((l) => l.type);
    assert.equal(types[types.length - 1], 'BOOKMARK');
    assert.ok(types.slice(0, -1).every((t) => t === 'ADDED') && types.length > 1);
    const end = watch.lines[types.length - 1] as { object: { metadata: { annotations: Record<string, string> } } };
    assert.equal(end.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
  });
});

// This describe only groups short, independent cases of one API rule: its length is their number.
describe('namespaces, limits and faults', () => {
  it('deleting a namespace deletes its objects (DELETED events in the change log) and then itself', async () => {
    fx.sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    fx.sim.objects.create(cm('x', {}, 'doomed'));
    fx.sim.objects.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'doomed' } });
    const from = fx.sim.changeLog.length;
    const res = await call(fx.sim, 'DELETE', '/api/v1/namespaces/doomed');
    assert.equal(res.body.status.phase, 'Terminating');
    assert.deepEqual(
      fx.sim.changeLog.slice(from).map((e) => `${e.type} ${e.kind} ${e.name}`),
      ['MODIFIED Namespace doomed', 'DELETED Secret s', 'DELETED ConfigMap x', 'DELETED Namespace doomed'],
    );
    assert.equal((await call(fx.sim, 'GET', cmPath('doomed'))).body.items.length, 0);
    assert.equal((await call(fx.sim, 'POST', cmPath('doomed'), { body: cm('y', {}, 'doomed') })).status, 404);
  });
  it('refuses objects over 1.5 MiB with 413 like etcd, ConfigMaps over 1 MiB with 422, bodies over 3 MiB before parsing', async () => {
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'big' },
      involvedObject: { kind: 'Ingress', name: 'web' },
      message: 'x'.repeat(1_600_000),
    };
    const big = await call(fx.sim, 'POST', '/api/v1/namespaces/fid/events', { body: event });
    assert.equal(big.status, 413);
    assert.equal(big.body.reason, 'RequestEntityTooLarge');
    const bigMap = await call(fx.sim, 'POST', cmPath(), { body: { ...cm('big'), data: { k: 'x'.repeat(1_100_000) } } });
    assert.equal(bigMap.status, 422);
    const huge = await call(fx.sim, 'POST', cmPath(), { body: { ...cm('huge'), data: { k: 'x'.repeat(3_200_000) } } });
    assert.equal(huge.status, 413);
  });
  it('fails the next N requests to one resource with the injected status (429 carries Retry-After)', async () => {
    fx.sim.faults.failRequests({ resource: 'configmaps', status: 429, count: 2, verbs: ['list'] });
    const one = await call(fx.sim, 'GET', cmPath());
    const two = await call(fx.sim, 'GET', cmPath());
    const three = await call(fx.sim, 'GET', cmPath());
    assert.deepEqual([one.status, two.status, three.status], [429, 429, 200]);
    assert.equal(one.headers['retry-after'], '1');
    assert.equal(one.body.reason, 'TooManyRequests');
    fx.sim.faults.failRequests({ resource: 'configmaps', status: 403, count: 1 });
    const forbidden = await call(fx.sim, 'GET', `${cmPath()}/a`);
    assert.equal(forbidden.status, 403);
    assert.match(forbidden.body.message, /cannot get resource "configmaps"/);
  });
  it('serves resourceVersion=0 lists from a lagging snapshot while the fault is on; quorum lists stay fresh', async () => {
    fx.sim.faults.lagZeroResourceVersionReads(true);
    fx.sim.objects.create(cm('fresh'));
    const lagging = await call(fx.sim, 'GET', `${cmPath()}?resourceVersion=0`);
    const quorum = await call(fx.sim, 'GET', cmPath());
    fx.sim.faults.lagZeroResourceVersionReads(false);
    const names = (b: { items: { metadata: { name: string } }[] }) => b.items.map((i) => i.metadata.name);
    assert.equal(names(lagging.body).includes('fresh'), false);
    assert.ok(Number(lagging.body.metadata.resourceVersion) < Number(quorum.body.metadata.resourceVersion));
    assert.equal(names(quorum.body).includes('fresh'), true);
  });
  it('stalls watches (nothing written, not even bookmarks) and delivers the backlog on resume', async () => {
    const watch = openWatch(
      fx.sim,
      `${cmPath()}?watch=true&resourceVersion=${fx.sim.store.resourceVersion}&allowWatchBookmarks=true`,
    );
    await watch.waitFor((l) => l.length >= 1);
    fx.sim.faults.stallWatches();
    const seen = watch.lines.length;
    fx.sim.objects.create(cm('during-stall'));
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(watch.lines.length, seen);
    fx.sim.faults.resumeWatches();
    await watch.waitFor((l) => l.some((x) => 'object' in x && x.object.metadata?.name === 'during-stall'));
    watch.close();
  });
  it('sends garbled lines and in-stream ERROR 410 into open watches; the admin endpoint drives the same faults', async () => {
    const watch = openWatch(fx.sim, `${cmPath()}?watch=true&resourceVersion=${fx.sim.store.resourceVersion}`);
    await watch.status;
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await call(fx.sim, 'POST', '/_sim/faults', { body: { action: 'garbled-line' } })).status, 200);
    assert.equal((await call(fx.sim, 'POST', '/_sim/faults', { body: { action: 'watch-gone' } })).body.watches, 1);
    await watch.ended;
    assert.deepEqual(
      watch.lines.map((l) => l.type),
      ['UNPARSABLE', 'ERROR'],
    );
    assert.equal(
      (await call(fx.sim, 'POST', '/_sim/faults', { body: { action: 'compact' }, token: 'wrong' })).status,
      401,
    );
    const log = await call(fx.sim, 'GET', '/_sim/changelog');
    assert.equal(log.body.items.length, fx.sim.changeLog.length);
    assert.deepEqual(Object.keys(log.body.items[0]), ['rv', 'type', 'kind', 'namespace', 'name', 'uid']);
  });
});
