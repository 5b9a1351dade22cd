import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planWatchStreams, streamRequestPath } from './watch-streams.ts';
import { WATCHED_KINDS, watchedKind } from './watched-kinds.ts';
import { checkServerVersion } from './server-version.ts';
import { backoffDelayMs, watchTimeoutSeconds } from './backoff.ts';
import { kindFreshness, liveness, readiness } from './kind-freshness.ts';
import { initialStreamState } from './stream-state.ts';

test('namespace scope: all-but-kube-system is one cluster-wide stream per kind with a field selector', () => {
  const streams = planWatchStreams(WATCHED_KINDS, 'all-except-kube-system', 'portolan.dev/tls=true');
  assert.deepEqual(
    streams.map((s) => s.id),
    [
      'Ingress',
      'IngressClass',
      'Service',
      'EndpointSlice',
      'Secret',
      'Node',
      'Namespace',
      'GatewayClass',
      'Gateway',
      'HTTPRoute',
      'TLSRoute',
      'ReferenceGrant',
    ],
  );
  assert.equal(
    streamRequestPath(
      streams.find((s) => s.id === 'HTTPRoute')!,
      { type: 'list', limit: 5 },
    ),
    '/apis/gateway.networking.k8s.io/v1/httproutes?fieldSelector=metadata.namespace%21%3Dkube-system&limit=5',
  );
  const secret = streams.find((s) => s.id === 'Secret')!;
  assert.equal(secret.fieldSelector, 'type=kubernetes.io/tls,metadata.namespace!=kube-system');
  assert.equal(secret.labelSelector, 'portolan.dev/tls=true');
  assert.equal(
    streams.find((s) => s.id === 'Node')!.fieldSelector,
    undefined,
    'cluster-scoped kinds are not namespace-filtered',
  );
});

test('namespace scope: a list gives one stream per namespace (no cluster-wide Secret access), one namespace one stream', () => {
  const listed = planWatchStreams([watchedKind('Secret'), watchedKind('IngressClass')], ['shop', 'blog', 'shop'], '');
  assert.deepEqual(
    listed.map((s) => s.id),
    ['Secret@blog', 'Secret@shop', 'IngressClass'],
  );
  assert.equal(
    streamRequestPath(listed[0]!, { type: 'list', limit: 500 }),
    '/api/v1/namespaces/blog/secrets?fieldSelector=type%3Dkubernetes.io%2Ftls&limit=500',
  );
  assert.deepEqual(
    planWatchStreams([watchedKind('Ingress')], 'shop', '').map((s) => s.id),
    ['Ingress@shop'],
  );
});

test('lists are quorum reads (no resourceVersion at all); watches ask for bookmarks and a bounded lifetime', () => {
  const [ing] = planWatchStreams([watchedKind('Ingress')], 'all-except-kube-system', '');
  const list = streamRequestPath(ing!, { type: 'list', limit: 2, continueToken: 'abc' });
  assert.ok(!list.includes('resourceVersion'), list);
  assert.equal(
    list,
    '/apis/networking.k8s.io/v1/ingresses?fieldSelector=metadata.namespace%21%3Dkube-system&limit=2&continue=abc',
  );
  const watch = new URL(
    streamRequestPath(ing!, { type: 'watch', resourceVersion: '42', timeoutSeconds: 377 }),
    'https://x',
  );
  assert.equal(watch.searchParams.get('watch'), '1');
  assert.equal(watch.searchParams.get('resourceVersion'), '42');
  assert.equal(watch.searchParams.get('allowWatchBookmarks'), 'true');
  assert.equal(watch.searchParams.get('timeoutSeconds'), '377');
});

test('server version: below 1.19 is an error, provider suffixes are understood, garbage is reported', () => {
  assert.deepEqual(checkServerVersion({ major: '1', minor: '31', gitVersion: 'v1.31.2' }), {
    ok: true,
    version: 'v1.31.2',
  });
  assert.equal(checkServerVersion({ major: '1', minor: '19+', gitVersion: 'v1.19.16-eks' }).ok, true);
  const old = checkServerVersion({ major: '1', minor: '18', gitVersion: 'v1.18.20' });
  assert.ok(!old.ok && old.reason === 'TooOld' && old.message.includes('v1.18.20'));
  const bad = checkServerVersion({ kind: 'Status' });
  assert.ok(!bad.ok && bad.reason === 'Unparseable');
});

test('backoff: equal jitter between half and all of the exponential step, capped at 30 s; watch timeouts spread over 1×–2×', () => {
  assert.equal(backoffDelayMs(1, 0), 250);
  assert.equal(backoffDelayMs(1, 1), 500);
  assert.equal(backoffDelayMs(4, 0), 2000);
  assert.equal(backoffDelayMs(50, 1), 30_000);
  assert.equal(backoffDelayMs(50, 0), 15_000);
  assert.equal(watchTimeoutSeconds(300, 0), 300);
  assert.equal(watchTimeoutSeconds(300, 1), 600);
});

test('freshness: unsynced kinds are not ready; a synced kind silent past the bound fails health; bookmarks keep it fresh', () => {
  const kind = watchedKind('EndpointSlice');
  const fresh = { ...initialStreamState(0), synced: true, lastFreshAt: 1_000 };
  const unsynced = initialStreamState(0);
  assert.deepEqual(readiness([kindFreshness(kind, [fresh, unsynced], 1n, 60_000, 2_000)]), {
    ok: false,
    reason: 'EndpointSlice not synced',
  });
  assert.deepEqual(liveness([kindFreshness(kind, [fresh, unsynced], 1n, 60_000, 2_000)]), { ok: true });
  const silent = kindFreshness(kind, [fresh], 1n, 60_000, 70_000);
  assert.ok(silent.stale && silent.ageMs === 69_000);
  assert.deepEqual(liveness([silent]), { ok: false, reason: 'EndpointSlice silent for 69 s' });
  assert.deepEqual(readiness([kindFreshness(kind, [fresh], 1n, 60_000, 30_000)]), { ok: true });
});
