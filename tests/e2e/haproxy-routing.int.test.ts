// HAProxy, end to end: kubectl → simulator → watcher → NATS → planner → Postgres → applier (leader of two) → HAProxy,
// with requests sent through HAProxy to echo backends standing in for pods.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';
import { endpointSlice, ingress, ingressClass, namespace, selfSignedCertificate, service } from './manifests.ts';
import { eventually } from './eventually.ts';

const ns = 'shop';
const pods = {
  web: ['127.0.21.1', '127.0.21.2'],
  api: ['127.0.21.3'],
  exact: ['127.0.21.4'],
  wild: ['127.0.21.5'],
  fallback: ['127.0.21.6'],
  spare: ['127.0.21.7', '127.0.21.8'],
};
let p: Pipeline;

before(async () => {
  p = await startPipeline({
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a', 'edge-b'],
      },
    ],
    echoAddresses: Object.values(pods).flat(),
  });
  const backends = ['web', 'api', 'exact', 'wild', 'fallback'] as const;
  await p.apply(
    [
      namespace(ns),
      ingressClass('portolan', 'portolan.dev/ingress-controller'),
      ...backends.map((b) => service(ns, b, p.echoPort)),
      ...backends.map((b) => endpointSlice(ns, b, pods[b], p.echoPort)),
    ].join(''),
  );
});
after(async () => {
  await p?.stop();
});

/** The pod (echo backend address) that answered, or the status when no backend did. */
async function who(host: string, path: string, options: { https?: boolean } = {}): Promise<string> {
  const r = await p.request(host, path, options);
  return r.echo?.address ?? `status ${r.status}`;
}

const context = (): string => p.diagnostics();

test('kubectl apply of an Ingress routes Exact, Prefix and wildcard hosts to the right Service; anything else is 404', async () => {
  await p.apply(
    ingress(ns, 'shop', {
      className: 'portolan',
      rules: [
        {
          host: 'shop.example.com',
          paths: [
            { path: '/', type: 'Prefix', service: 'web' },
            { path: '/api', type: 'Prefix', service: 'api' },
            { path: '/exact', type: 'Exact', service: 'exact' },
          ],
        },
        { host: '*.wild.example.com', paths: [{ path: '/', type: 'Prefix', service: 'wild' }] },
        { host: 'only-exact.example.com', paths: [{ path: '/v1', type: 'Exact', service: 'api' }] },
      ],
    }),
  );
  await eventually(
    'the Ingress to be served',
    async () => assert.equal(await who('shop.example.com', '/api'), pods.api[0]),
    { context },
  );
  const table: [host: string, path: string, want: string | readonly string[]][] = [
    ['shop.example.com', '/', pods.web],
    ['SHOP.example.com:80', '/cart', pods.web],
    ['shop.example.com', '/api', pods.api[0]!],
    ['shop.example.com', '/api/v2/items', pods.api[0]!],
    ['shop.example.com', '/apix', pods.web], // Prefix matches whole path elements: /api does not match /apix
    ['shop.example.com', '/exact', pods.exact[0]!],
    ['shop.example.com', '/exact/', pods.web], // Exact matches only /exact
    ['a.wild.example.com', '/', pods.wild[0]!],
    ['b.wild.example.com', '/x', pods.wild[0]!],
    ['a.b.wild.example.com', '/', 'status 404'], // a wildcard covers exactly one label
    ['wild.example.com', '/', 'status 404'],
    ['only-exact.example.com', '/v1', pods.api[0]!],
    ['only-exact.example.com', '/v2', 'status 404'],
    ['unknown.example.com', '/', 'status 404'],
  ];
  for (const [host, path, want] of table) {
    const got = await who(host, path);
    if (typeof want === 'string') assert.equal(got, want, `${host}${path}`);
    else assert.ok(want.includes(got), `${host}${path} went to ${got}, want one of ${want.join(', ')}`);
  }
  // Statuses are written after the apply, queued at the Kubernetes client's default rate behind the other Ingresses
  // whose listeners changed: the status follows the routing, not necessarily within the HTTP checks above.
  await eventually(
    'the served Ingress to report the listen address',
    async () => {
      const status = await p.kubectl([
        'get',
        'ingress',
        'shop',
        '-n',
        ns,
        '-o',
        'jsonpath={.status.loadBalancer.ingress[*].ip}',
      ]);
      assert.equal(status, '127.0.0.1', 'the served Ingress reports the listen address');
    },
    { context },
  );
});

test('an Ingress default backend catches every request no rule matches; deleting it gives 404 again', async () => {
  await p.apply(ingress(ns, 'fallback', { className: 'portolan', defaultBackend: 'fallback' }));
  await eventually(
    'the default backend',
    async () => assert.equal(await who('unknown.example.com', '/'), pods.fallback[0]),
    { context },
  );
  assert.equal(
    await who('only-exact.example.com', '/v2'),
    pods.fallback[0],
    'unmatched paths of a host with rules go to the default backend',
  );
  assert.equal(await who('a.b.wild.example.com', '/'), pods.fallback[0]);
  assert.equal(await who('shop.example.com', '/api'), pods.api[0], 'rules still win over the default backend');

  await p.kubectl(['delete', 'ingress', 'fallback', '-n', ns]);
  await eventually(
    '404 after deleting the Ingress',
    async () => assert.equal(await who('unknown.example.com', '/'), 'status 404'),
    { context },
  );
  assert.ok(pods.web.includes(await who('shop.example.com', '/')), 'the other Ingress keeps serving');
});

test('scaling a Service (editing its EndpointSlice) shifts traffic through the Runtime API with zero reloads', async () => {
  await p.settled('edge');
  const reloadsBefore = await p.haproxyReloads();
  const answering = async (n: number): Promise<Set<string>> => {
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) seen.add(await who('shop.example.com', '/'));
    return seen;
  };

  await p.apply(endpointSlice(ns, 'web', [...pods.web, ...pods.spare], p.echoPort));
  await eventually(
    'four web pods to answer',
    async () => assert.deepEqual([...(await answering(12))].sort(), [...pods.web, ...pods.spare].sort()),
    { context },
  );

  // The old pods go (2 of 7 members: under the 30 % safety limit, which would hold the plan).
  await p.apply(endpointSlice(ns, 'web', pods.spare, p.echoPort));
  await eventually(
    'only the new pods to answer',
    async () => assert.deepEqual([...(await answering(8))].sort(), pods.spare),
    { context },
  );

  assert.equal(await p.haproxyReloads(), reloadsBefore, 'endpoint changes must not reload HAProxy');
  // haproxy.cfg's server lines follow the Runtime API within serverLinesWriteDelayMs (1 s by default).
  await eventually(
    'HAProxy (runtime and files) to equal the planner output',
    async () => assert.deepEqual(await p.pendingOperations('edge'), []),
    { timeoutMs: 5_000, context },
  );
  const applied = await p.db
    .selectFrom('applies')
    .select(['status', 'epoch'])
    .where('appliance', '=', p.appliance('edge'))
    .where('status', '=', 'succeeded')
    .execute();
  assert.ok(applied.length >= 2, 'each scaling step was recorded as an apply with its epoch');
});

test('TLS from Secrets (kubectl create secret tls) is served by SNI, ssl-redirect answers 308 to HTTPS, and deleting the Ingress gives 404', async (t) => {
  const certA = selfSignedCertificate(['a.secure.example.com']);
  const certB = selfSignedCertificate(['b.secure.example.com']);
  t.after(() => {
    certA.dispose();
    certB.dispose();
  });
  await p.kubectl(['create', 'secret', 'tls', 'cert-a', '-n', ns, '--cert', certA.certFile, '--key', certA.keyFile]);
  await p.kubectl(['create', 'secret', 'tls', 'cert-b', '-n', ns, '--cert', certB.certFile, '--key', certB.keyFile]);
  // Two Ingresses, one host each: deleting one then removes 1 of 5 hosts, under the planner's 30 % safety limit.
  await p.apply(
    [
      ingress(ns, 'secure-a', {
        className: 'portolan',
        annotations: { 'portolan.dev/ssl-redirect': 'true' },
        tls: [{ hosts: ['a.secure.example.com'], secretName: 'cert-a' }],
        rules: [{ host: 'a.secure.example.com', paths: [{ path: '/', type: 'Prefix', service: 'api' }] }],
      }),
      ingress(ns, 'secure-b', {
        className: 'portolan',
        tls: [{ hosts: ['b.secure.example.com'], secretName: 'cert-b' }],
        rules: [{ host: 'b.secure.example.com', paths: [{ path: '/', type: 'Prefix', service: 'exact' }] }],
      }),
    ].join(''),
  );
  const a = await eventually(
    'HTTPS for a.secure.example.com',
    async () => {
      const r = await p.request('a.secure.example.com', '/pay', { https: true });
      assert.equal(r.echo?.address, pods.api[0]);
      return r;
    },
    { context },
  );
  assert.equal(a.certificateNames, 'DNS:a.secure.example.com', 'SNI a gets certificate a');
  assert.equal(a.echo?.forwardedProto, 'https');
  const b = await eventually(
    'HTTPS for b.secure.example.com',
    async () => {
      const r = await p.request('b.secure.example.com', '/', { https: true });
      assert.equal(r.echo?.address, pods.exact[0]);
      return r;
    },
    { context },
  );
  assert.equal(b.certificateNames, 'DNS:b.secure.example.com', 'SNI b gets certificate b');
  assert.equal(
    (await p.request('a.secure.example.com', '/', { https: true })).certificateNames,
    'DNS:a.secure.example.com',
    'and SNI a still certificate a',
  );

  const redirect = await eventually(
    'the ssl-redirect',
    async () => {
      const r = await p.request('a.secure.example.com', '/pay?x=1');
      assert.equal(r.status, 308);
      return r;
    },
    { context },
  );
  assert.equal(redirect.headers.location, `https://a.secure.example.com:${p.httpsPort}/pay?x=1`);

  // Without the annotation there is no redirect: every rule of an Ingress is served over plain HTTP too.
  assert.equal(
    (await p.request('b.secure.example.com', '/')).echo?.address,
    pods.exact[0],
    'no ssl-redirect without the annotation: served over HTTP',
  );

  await p.kubectl(['delete', 'ingress', 'secure-a', '-n', ns]);
  await eventually(
    '404 for the deleted Ingress',
    async () => {
      assert.equal((await p.request('a.secure.example.com', '/pay')).status, 404);
    },
    { context },
  );
  assert.equal((await p.request('a.secure.example.com', '/pay', { https: true })).status, 404);
  assert.equal(
    (await p.request('b.secure.example.com', '/', { https: true })).echo?.address,
    pods.exact[0],
    'the other TLS Ingress still serves',
  );
  assert.ok(
    pods.spare.includes(await who('shop.example.com', '/')),
    'the remaining Ingress still serves (the pods scaled to above)',
  );
});

test('an Ingress whose TLS section lists one of its two hosts serves both over HTTP and that host over HTTPS; ssl-redirect redirects only that host', async (t) => {
  const cert = selfSignedCertificate(['pay.mixed.example.com']);
  t.after(() => cert.dispose());
  await p.kubectl(['create', 'secret', 'tls', 'cert-pay', '-n', ns, '--cert', cert.certFile, '--key', cert.keyFile]);
  const mixed = (annotations: Record<string, string>): string =>
    ingress(ns, 'mixed', {
      className: 'portolan',
      annotations,
      tls: [{ hosts: ['pay.mixed.example.com'], secretName: 'cert-pay' }],
      rules: [
        { host: 'pay.mixed.example.com', paths: [{ path: '/', type: 'Prefix', service: 'api' }] },
        { host: 'docs.mixed.example.com', paths: [{ path: '/', type: 'Prefix', service: 'wild' }] },
      ],
    });
  await p.apply(mixed({}));
  const secure = await eventually(
    'HTTPS for the TLS host',
    async () => {
      // The Secret and the Ingress come on separate watches, so the Ingress can be planned first: until the Secret
      // is, the host is served over HTTPS with the default certificate (as ingress-nginx does).
      const r = await p.request('pay.mixed.example.com', '/checkout', { https: true });
      assert.equal(r.echo?.address, pods.api[0]);
      assert.equal(r.certificateNames, 'DNS:pay.mixed.example.com', 'SNI pay gets its certificate');
      return r;
    },
    { context },
  );
  assert.equal(secure.echo?.forwardedProto, 'https');
  const plainPay = await p.request('pay.mixed.example.com', '/checkout');
  assert.equal(plainPay.echo?.address, pods.api[0], 'the TLS host answers over HTTP with its backend');
  assert.equal(plainPay.echo?.forwardedProto, 'http');
  assert.equal(
    await who('docs.mixed.example.com', '/guide'),
    pods.wild[0],
    'the host without a certificate answers over HTTP with its backend',
  );

  await p.apply(mixed({ 'portolan.dev/ssl-redirect': 'true' }));
  const redirect = await eventually(
    'the ssl-redirect of the TLS host',
    async () => {
      const r = await p.request('pay.mixed.example.com', '/checkout?step=2');
      assert.equal(r.status, 308);
      return r;
    },
    { context },
  );
  assert.equal(redirect.headers.location, `https://pay.mixed.example.com:${p.httpsPort}/checkout?step=2`);
  assert.equal(
    await who('docs.mixed.example.com', '/guide'),
    pods.wild[0],
    'the host without a certificate is still served over HTTP',
  );
  assert.equal(
    (await p.request('pay.mixed.example.com', '/checkout', { https: true })).echo?.address,
    pods.api[0],
    'and the TLS host over HTTPS',
  );
});
