// The Gateway API is served only once its CRDs are installed. A cluster without them must not keep the watcher
// unready or its kinds unsynced: the kinds are listed as empty and looked for again. Installing the CRDs later
// brings their objects in; removing them (which deletes every object of the kinds) deletes them on the bus too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testStack } from '@portolan/infra';
import { KubeKind, KubeEventType } from '@portolan/proto';
import { startHarness, waitFor, type StreamRecord } from './testing/watcher-harness.ts';
import { namespace } from './testing/sample-objects.ts';

const GATEWAY_RESOURCES = ['gatewayclasses', 'gateways', 'httproutes', 'tlsroutes', 'referencegrants'];

const route = (name: string): Record<string, unknown> => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name, namespace: 'shop' },
  spec: {
    parentRefs: [{ name: 'shared', namespace: 'infra' }],
    rules: [{ backendRefs: [{ name: 'web', port: 80 }] }],
  },
});

const routeEvents = (records: readonly StreamRecord[]): string[] =>
  records.flatMap((r) =>
    r.kind === 'event' && r.event.kind === KubeKind.HTTP_ROUTE
      ? [`${KubeEventType[r.event.type]} ${r.event.name}`]
      : [],
  );

test('without the Gateway API CRDs the watcher is ready with the kinds empty; installing and removing them is followed', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({ natsUrl, deferStart: true, timing: { absentRecheckMs: 300 } });
  try {
    h.sim.objects.create(namespace('shop'));
    // "Not installed": every request to the Gateway API's resources answers 404 NotFound, as for an unknown type.
    for (const resource of GATEWAY_RESOURCES) h.sim.faults.failRequests({ resource, status: 404, count: 1e9 });
    h.startWatcher();
    const first = await waitFor('an empty list marker for HTTPRoute', async () => {
      const r = await h.read();
      return r.some((x) => x.kind === 'marker' && x.marker.kind === KubeKind.HTTP_ROUTE) ? r : undefined;
    });
    const marker = first.find((x) => x.kind === 'marker' && x.marker.kind === KubeKind.HTTP_ROUTE);
    assert.ok(marker?.kind === 'marker');
    assert.deepEqual(marker.marker.keys, []);
    await waitFor('ready with the Gateway API absent', () => (h.watcher.readiness().ok ? true : undefined));

    // Still absent at the next looks: no further markers for it (the planner has the empty list).
    await new Promise((r) => setTimeout(r, 1_000));
    const quiet = (await h.read()).filter((x) => x.kind === 'marker' && x.marker.kind === KubeKind.HTTP_ROUTE);
    assert.equal(quiet.length, 1, 'an absent kind looked for again publishes nothing new');

    // "Installed": the faults end, a route is created, and the next look lists it.
    h.sim.faults.clear();
    h.sim.objects.create(route('canary'));
    await waitFor('the route published', async () =>
      routeEvents(await h.read()).includes('ADDED canary') ? true : undefined,
    );

    // "Removed": the API answers 404 again and the open watch ends; the route is deleted on the bus.
    for (const resource of GATEWAY_RESOURCES) h.sim.faults.failRequests({ resource, status: 404, count: 1e9 });
    h.sim.faults.endWatches({ resource: 'httproutes' });
    await waitFor('the route deleted', async () =>
      routeEvents(await h.read()).includes('DELETED canary') ? true : undefined,
    );
    assert.ok(h.watcher.readiness().ok, 'still ready');
  } finally {
    h.sim.faults.clear();
    await h.close();
  }
});
