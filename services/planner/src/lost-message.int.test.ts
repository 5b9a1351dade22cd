// Lost-message detection on a real stream and database: a watcher's settled heartbeat claims an object the planner
// never received (the broker acknowledged it and lost it); the planner asks that cluster's watchers to republish
// the kind, once, and only that kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heartbeatSubject, relistRequestSubject } from '@portolan/bus';
import { RunningDigest } from '@portolan/kube-model';
import {
  create,
  KindFreshnessSchema,
  KubeEventType,
  KubeKind,
  timestampFromMs,
  toBinary,
  WatcherHeartbeatSchema,
} from '@portolan/proto';
import {
  harness,
  kubeObject,
  markSynced,
  publish,
  runUntil,
  service,
  teardown,
} from './testing/planner-service-harness.ts';

function digestOf(entries: [string, string][]): { digest: number; count: number } {
  const d = new RunningDigest();
  for (const [key, rv] of entries) d.add(key, rv);
  return { digest: d.digest, count: d.count };
}

const rvOf = (o: Record<string, unknown>): string => (o.metadata as { resourceVersion: string }).resourceVersion;

test('a settled watcher digest the planner lacks asks for a republish of that kind, once; the republish mends it', async () => {
  const h = await harness();
  const requests: unknown[] = [];
  const stopListening = h.bus.listen(relistRequestSubject('dev'), (data) =>
    requests.push(JSON.parse(new TextDecoder().decode(data))),
  );
  let seq = 0;
  const send = async (kind: string, o: Record<string, unknown>): Promise<void> => {
    await publish(h.bus, kind, o, KubeEventType.ADDED);
    seq++;
  };
  let beat = 0;
  const heartbeat = async (kinds: [KubeKind, { digest: number; count: number }][]): Promise<void> => {
    beat++;
    const message = create(WatcherHeartbeatSchema, {
      cluster: 'dev',
      watcherId: 'w-test',
      sentAt: timestampFromMs(Date.now()),
      kinds: kinds.map(([kind, d]) =>
        create(KindFreshnessSchema, {
          kind,
          synced: true,
          settled: true,
          stateDigest: d.digest,
          objectCount: BigInt(d.count),
        }),
      ),
    });
    await h.bus.publish(heartbeatSubject('dev'), toBinary(WatcherHeartbeatSchema, message), { msgId: `hb-${beat}` });
    seq++;
  };
  try {
    const svc = kubeObject('Service', 'shop', 'web', { spec: { ports: [{ port: 80, protocol: 'TCP' }] } });
    const ing = kubeObject('Ingress', 'shop', 'web', { spec: { ingressClassName: 'portolan' } });
    await send('Service', svc);
    await send('Ingress', ing);
    await markSynced(h.bus, { Service: ['shop/web'], Ingress: ['shop/web'] });
    seq += 6;
    // Created after the list: the watcher saw it by watch, and its event is the one the broker lost.
    const lost = kubeObject('Ingress', 'shop', 'lost', { spec: { ingressClassName: 'portolan' } });
    const services = digestOf([['shop/web', rvOf(svc)]]);
    const published = digestOf([
      ['shop/web', rvOf(ing)],
      ['shop/lost', rvOf(lost)],
    ]);
    const s = service(h);
    await s.recover();

    // The watcher says it published two Ingresses; the stream gave the planner one.
    await heartbeat([
      [KubeKind.SERVICE, services],
      [KubeKind.INGRESS, published],
    ]);
    await runUntil(h, s, seq);
    await new Promise((r) => setTimeout(r, 3_200));
    assert.deepEqual(requests, [], 'a difference seen once may be a change in flight');
    await heartbeat([
      [KubeKind.SERVICE, services],
      [KubeKind.INGRESS, published],
    ]);
    await runUntil(h, s, seq);
    await waitUntil(() => requests.length > 0);
    assert.deepEqual(requests, [{ kinds: ['Ingress'] }], 'only the kind that differs, once');

    // The same difference again is not asked again.
    await heartbeat([[KubeKind.INGRESS, published]]);
    await runUntil(h, s, seq);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(requests.length, 1);

    // The watchers republish: the lost Ingress arrives, and the planner's state now has the watcher's digest.
    await send('Ingress', lost);
    await heartbeat([[KubeKind.INGRESS, published]]);
    await runUntil(h, s, seq);
    assert.deepEqual(s.stateDigest('dev', 'Ingress'), published);
  } finally {
    stopListening();
    await teardown(h);
  }
});

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
}
