// The day, part 2 (steps 14–22): TLS added and rotated, an Ingress changes class and back, an environment is
// torn down and rebuilt.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { answers, p, pod, portolan, servedBy, team, within } from '../everyday-day.ts';
import { ingress, selfSignedCertificate } from '../manifests.ts';

const certV1 = { current: null as ReturnType<typeof selfSignedCertificate> | null };
const certV2 = { current: null as ReturnType<typeof selfSignedCertificate> | null };
after(() => {
  certV1.current?.dispose();
  certV2.current?.dispose();
});

test('14 TLS is added to an Ingress: HTTPS by SNI with its certificate', async () => {
  certV1.current = selfSignedCertificate(['a.example.com']);
  await p.kubectl([
    'create',
    'secret',
    'tls',
    'a-tls',
    '-n',
    'team-a',
    '--cert',
    certV1.current.certFile,
    '--key',
    certV1.current.keyFile,
  ]);
  await p.apply(
    ingress('team-a', 'web', {
      className: 'portolan',
      tls: [{ hosts: ['a.example.com'], secretName: 'a-tls' }],
      rules: [
        { host: 'a.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] },
        { host: 'plain-a.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] },
      ],
    }),
  );
  await within('HTTPS for a.example.com', async () => {
    const r = await p.request('a.example.com', '/', { https: true });
    assert.ok(r.echo !== null && [pod(1), pod(2)].includes(r.echo.address), `status ${r.status}`);
    assert.equal(r.certificateNames, 'DNS:a.example.com');
  });
});

test('15 with TLS, every rule is still served over plain HTTP', async () => {
  await servedBy('plain-a.example.com', [pod(1), pod(2)]);
  await servedBy('a.example.com', [pod(1), pod(2)]);
});

test('16 the TLS Secret is rotated: the new certificate is served', async () => {
  certV2.current = selfSignedCertificate(['a.example.com', 'www.a.example.com']);
  const secret = await p.kubectl([
    'create',
    'secret',
    'tls',
    'a-tls',
    '-n',
    'team-a',
    '--cert',
    certV2.current.certFile,
    '--key',
    certV2.current.keyFile,
    '--dry-run=client',
    '-o',
    'yaml',
  ]);
  await p.apply(secret);
  await within('the rotated certificate', async () => {
    const r = await p.request('a.example.com', '/', { https: true });
    assert.equal(r.certificateNames, 'DNS:a.example.com, DNS:www.a.example.com');
  });
});

/** The vTM virtual servers whose ownership note names an Ingress. */
async function vtmServersOf(source: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await p.vtm.names('virtual_servers')) {
    const vs = await p.vtm.get('virtual_servers', name);
    if (String(vs?.basic?.note ?? '').includes(`:${source}`)) out.push(name);
  }
  return out;
}

test('17 an Ingress moves from class portolan to vtm: gone from HAProxy, a virtual server on the vTM', async () => {
  await p.apply(
    ingress('team-c', 'blog', {
      className: 'vtm',
      annotations: { 'vtm.pulsesecure.net/ip-address': '10.9.41.1' },
      rules: [{ host: 'blog.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await answers('blog.example.com', 404);
  await within('the vTM virtual server', async () =>
    assert.equal((await vtmServersOf('Ingress/local/team-c/blog')).length, 1),
  );
});

test('18 and back to portolan: served by HAProxy, removed from the vTM', async () => {
  await p.apply(
    ingress('team-c', 'blog', {
      className: 'portolan',
      rules: [{ host: 'blog.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await servedBy('blog.example.com', [pod(9)]);
  await within('the vTM virtual server removed', async () =>
    assert.deepEqual(await vtmServersOf('Ingress/local/team-c/blog'), []),
  );
});

const environment = (): string =>
  team('env-web', ['web.env.example.com', 'www.env.example.com'], [pod(10), pod(11)]) +
  team('env-api', ['api.env.example.com'], [pod(12)]) +
  team('env-admin', ['admin.env.example.com'], [pod(13)]);

test('19 a whole environment comes up', async () => {
  await p.apply(environment());
  await servedBy('www.env.example.com', [pod(10), pod(11)]);
  await servedBy('api.env.example.com', [pod(12)]);
  await servedBy('admin.env.example.com', [pod(13)]);
});

test('20 it is torn down at once', async () => {
  await p.kubectl(['delete', 'namespace', 'env-web', 'env-api', 'env-admin', '--wait=false']);
  for (const host of ['web.env.example.com', 'api.env.example.com', 'admin.env.example.com']) await answers(host, 404);
});

test('21 and rebuilt', async () => {
  await p.apply(environment());
  await servedBy('web.env.example.com', [pod(10), pod(11)]);
  await servedBy('admin.env.example.com', [pod(13)]);
});

test('22 nothing is held and status says so', async () => {
  const r = await portolan(['status', '-o', 'json']);
  const report = JSON.parse(r.stdout) as { holds: unknown[] };
  assert.deepEqual(report.holds, []);
});
