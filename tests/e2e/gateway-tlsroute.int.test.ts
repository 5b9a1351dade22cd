// TLSRoute end to end: a Gateway's TLS listener in Passthrough mode routes connections by their SNI name to pods
// that terminate TLS themselves; HAProxy never decrypts. A wildcard hostname covers any number of labels, an exact
// one wins over it, and a name no route covers is not served.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEchoBackends, type EchoBackends } from '@portolan/echo-backend';
import { freePort } from '@portolan/infra';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';
import { endpointSlice, gatewayClass, namespace, selfSignedCertificate, service } from './manifests.ts';
import { eventually } from './eventually.ts';
import { sendRequest } from './http-client.ts';

const ns = 'vault';
const pods = { exact: '127.0.24.1', wild: '127.0.24.2' };
let p: Pipeline;
let tlsPods: EchoBackends;
let listenerPort: number;
let certificate: ReturnType<typeof selfSignedCertificate>;

const gateway = (port: number): string => `${gatewayClass()}---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: { name: passthrough, namespace: ${ns} }
spec:
  gatewayClassName: portolan
  listeners:
    - name: tls
      port: ${port}
      protocol: TLS
      tls: { mode: Passthrough }
      allowedRoutes: { kinds: [{ kind: TLSRoute }] }
`;

const tlsRoute = (name: string, hostname: string, backend: string): string => `---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: { name: ${name}, namespace: ${ns} }
spec:
  parentRefs: [{ name: passthrough }]
  hostnames: ['${hostname}']
  rules: [{ backendRefs: [{ name: ${backend}, port: 80 }] }]
`;

before(async () => {
  certificate = selfSignedCertificate(['db.example.com', '*.wild.example.com']);
  const tls = { certificatePem: certificate.certificatePem, privateKeyPem: certificate.privateKeyPem };
  tlsPods = await startEchoBackends([
    { address: pods.exact, port: 0, tls },
    { address: pods.wild, port: 0, tls },
  ]);
  const [exact, wild] = tlsPods.backends;
  listenerPort = await freePort();
  p = await startPipeline({
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a'],
      },
    ],
  });
  await p.apply(
    [
      namespace(ns),
      service(ns, 'db', exact!.port),
      service(ns, 'wild', wild!.port),
      endpointSlice(ns, 'db', [pods.exact], exact!.port),
      endpointSlice(ns, 'wild', [pods.wild], wild!.port),
      gateway(listenerPort),
      tlsRoute('db', 'db.example.com', 'db'),
      tlsRoute('wild', '*.wild.example.com', 'wild'),
    ].join(''),
  );
});
after(async () => {
  await p?.stop();
  await tlsPods?.close();
  certificate?.dispose();
});

const context = (): string => p.diagnostics();

/** Opens TLS to the listener with this SNI name; the pod that terminated it answers (HAProxy only passed it on). */
const through = (sni: string) => sendRequest(listenerPort, sni, '/status', { https: true });

test('TLS passthrough by SNI: the exact name and any depth under the wildcard reach their pods, still encrypted', async () => {
  const db = await eventually(
    'db.example.com to reach its pod',
    async () => {
      const r = await through('db.example.com');
      assert.equal(r.echo?.address, pods.exact, `status ${r.status}`);
      return r;
    },
    { context, timeoutMs: 60_000 },
  );
  assert.equal(db.echo?.tls, true, 'the pod terminated TLS');
  assert.match(db.certificateNames ?? '', /DNS:db\.example\.com/, "the pod's own certificate, not one of HAProxy's");
  // The two TLSRoutes may reach the appliance in different snapshots: the wildcard one is waited for as well.
  for (const host of ['a.wild.example.com', 'a.b.c.wild.example.com']) {
    const r = await eventually(
      `${host} to reach its pod`,
      async () => {
        const reply = await through(host);
        assert.equal(reply.echo?.address, pods.wild, `${host}: status ${reply.status}`);
        return reply;
      },
      { context, timeoutMs: 60_000 },
    );
    assert.equal(r.echo?.tls, true);
  }
});

test('a name no TLSRoute covers is not served: the bare wildcard suffix, and another host', async () => {
  for (const host of ['wild.example.com', 'other.example.com'])
    await assert.rejects(through(host), `${host} must get no TLS session`);
});

test('the TLSRoute parents are Accepted with ResolvedRefs, and the listener counts both routes', async () => {
  await eventually(
    'the status to be written',
    async () => {
      const route = JSON.parse(await p.kubectl(['get', 'tlsroute/wild', '-n', ns, '-o', 'json'])) as {
        status?: { parents?: { conditions: { type: string; status: string }[] }[] };
      };
      const conditions = route.status?.parents?.[0]?.conditions ?? [];
      assert.deepEqual(conditions.map((c) => `${c.type}=${c.status}`).sort(), ['Accepted=True', 'ResolvedRefs=True']);
      const gw = JSON.parse(await p.kubectl(['get', 'gateway/passthrough', '-n', ns, '-o', 'json'])) as {
        status?: { listeners?: { attachedRoutes: number }[] };
      };
      assert.equal(gw.status?.listeners?.[0]?.attachedRoutes, 2);
    },
    { context, timeoutMs: 30_000 },
  );
});
