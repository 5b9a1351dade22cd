// Defence in depth against a configuration HAProxy refuses: the driver's scratch `haproxy -c` and the bisection of
// @portolan/appliance-driver find the objects responsible, and the rest applies to the running HAProxy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRefusedSources } from '@portolan/appliance-driver';
import { objectRefKey, withoutSources, type ObjectRef } from '@portolan/desired-state';
import { startHarness, selfSignedCertificate } from './testing/haproxy-harness.ts';
import { certificate, desired, member, pool, service } from './testing/desired-fixtures.ts';

const ing = (name: string): ObjectRef => ({ cluster: 'c1', kind: 'Ingress', namespace: 'default', name });
const route = (name: string) => ({
  host: `${name}.example.com`,
  path: '/',
  match: 'Prefix' as const,
  pool: `pool-${name}`,
  source: ing(name),
});
const badMonitor = {
  type: 'http' as const,
  path: '/',
  hostHeader: '',
  expectStatus: '^2[^]0$',
  intervalSeconds: 3,
  timeoutSeconds: 3,
  failures: 3,
  vendor: null,
};

test("a refused configuration: the bad Ingress and the bad Secret are found by HAProxy's own check, and the rest applies", async () => {
  const h = await startHarness();
  try {
    const names = ['a', 'b', 'bad-monitor', 'c', 'd', 'tls'];
    const good = selfSignedCertificate(['tls.example.com'], h.dir);
    const other = selfSignedCertificate(['other.example.com'], h.dir);
    h.secrets.material.set('good-cert', good);
    h.secrets.material.set('mismatched', { certificatePem: good.certificatePem, privateKeyPem: other.privateKeyPem });
    const state = desired({
      virtualServices: [
        service('http', 80, names.map(route), { owners: names.map(ing) }),
        service('https', 443, [route('tls')], {
          protocol: 'https',
          owners: [ing('tls')],
          certificates: ['good-cert', 'mismatched'],
        }),
      ],
      pools: names.map((n) =>
        pool(`pool-${n}`, [member('127.0.0.1', 9000)], n === 'bad-monitor' ? { monitor: badMonitor } : {}),
      ),
      certificates: [certificate('good-cert', ['tls.example.com']), certificate('mismatched', ['tls.example.com'])],
    });
    const round = await h.apply(state);
    assert.ok(
      round.results.some((r) => !r.ok && r.code === 'ConfigInvalid'),
      JSON.stringify(round.results),
    );

    const refused = await findRefusedSources(state, (d) => h.driver.checkConfiguration(d, h.secrets));
    assert.deepEqual(refused?.map((r) => `${r.ref.kind}/${r.ref.name}`).sort(), [
      'Ingress/bad-monitor',
      'Secret/mismatched',
    ]);
    assert.match(refused!.find((r) => r.ref.name === 'bad-monitor')!.message, /regex|rstatus|expect/i);

    const rest = withoutSources(state, new Set(refused!.map((r) => objectRefKey(r.ref))));
    const applied = await h.apply(rest);
    assert.ok(
      applied.results.every((r) => r.ok),
      JSON.stringify(applied.results),
    );
    assert.deepEqual(await h.pending(rest), [], 'the running HAProxy holds everything but the refused objects');
  } finally {
    await h[Symbol.asyncDispose]();
  }
});
