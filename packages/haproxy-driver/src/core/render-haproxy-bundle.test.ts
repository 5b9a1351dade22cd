import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { textOf } from '@portolan/desired-state';
import { type HaproxyRenderOptions, renderHaproxyBundle } from './render-haproxy-bundle.ts';
import type { HaproxyBundle } from './haproxy-bundle.ts';
import { certificate, desired, member, pool, route, service } from '../testing/desired-fixtures.ts';
import { monitor, representativeStates as states } from '../testing/representative-states.ts';

const options: HaproxyRenderOptions = {
  configDir: '/etc/portolan/edge',
  defaultAddress: '192.0.2.10',
  sizing: { minFreeSlots: 1, slotIncrement: 2 },
  serverHeader: 'portolan',
  hardStopAfter: '5m',
};

/** Whole-output comparison against testdata/<name>.txt (all files of the bundle); UPDATE_GOLDEN=1 rewrites them. */
function assertGolden(name: string, bundle: HaproxyBundle): void {
  const text = bundle.files.map((f) => `==> ${f.path} <==\n${textOf(f.content)}`).join('\n');
  const file = path.join(import.meta.dirname, 'testdata', `${name}.txt`);
  if (process.env['UPDATE_GOLDEN'] === '1') fs.writeFileSync(file, text);
  assert.equal(text, fs.readFileSync(file, 'utf8'));
}

for (const [name, state] of Object.entries(states)) {
  test(`render ${name}: whole bundle matches testdata/${name}.txt`, () => {
    assertGolden(name, renderHaproxyBundle(state, options));
  });
}

test('render routing: backends carry the slots and the maps carry the routes', () => {
  const bundle = renderHaproxyBundle(states['routing']!, options);
  assert.deepEqual(
    bundle.backends.map((b) => [b.name, b.slots.map((s) => (s.state === 'maint' ? '-' : `${s.address}:${s.port}`))]),
    [
      ['http:default_api:80-f20ecdc1', ['10.1.0.3:9090', '-']],
      ['http:default_web:80-7420aa13', ['10.1.0.1:8080', '10.1.0.2:8080', '-', '-']],
    ],
  );
  assert.deepEqual(
    bundle.maps.map((m) => [m.path, m.entries.length]),
    [
      ['maps/http.exact.map', 3],
      ['maps/http.hosts.map', 2],
      ['maps/http.prefix.map', 2],
    ],
  );
  assert.deepEqual(bundle.certificates, []);
});

test('render tls: certificates are references only — no PEM material anywhere in the bundle', () => {
  const bundle = renderHaproxyBundle(states['tls']!, options);
  assert.deepEqual(
    bundle.certificates.map((c) => [c.path, c.secret.name, c.fingerprint]),
    [
      ['certs/blog-tls.pem', 'blog-tls', 'fp1'],
      ['certs/shop-tls.pem', 'shop-tls', 'fp1'],
    ],
  );
  assert.ok(!JSON.stringify(bundle).includes('BEGIN'));
});

test('an HTTPS listener without any known certificate is left out; the other listeners still render', () => {
  const state = desired({
    pools: [pool('web', [member('10.1.0.1', 80)])],
    virtualServices: [
      service('https', 443, [route('a.test', '/', 'Prefix', 'web')], { protocol: 'https', certificates: ['unknown'] }),
      service('http', 80, [route('a.test', '/', 'Prefix', 'web')]),
    ],
  });
  const config = textOf(renderHaproxyBundle(state, options).files.find((f) => f.path === 'haproxy.cfg')?.content ?? '');
  assert.match(config, /^frontend fe:http$/m);
  assert.doesNotMatch(config, /^frontend fe:https$/m);
});

test('an ACME certificate not issued yet (empty fingerprint) is not served and not written', () => {
  const state = desired({
    pools: [pool('web', [member('10.1.0.1', 80)])],
    certificates: [{ ...certificate('pending', ['a.test'], ''), acme: true }, certificate('issued', ['b.test'])],
    virtualServices: [
      service('https', 443, [route('a.test', '/', 'Prefix', 'web')], {
        protocol: 'https',
        certificates: ['pending', 'issued'],
      }),
    ],
  });
  const bundle = renderHaproxyBundle(state, options);
  assert.deepEqual(
    bundle.certificates.map((c) => c.path),
    ['certs/issued.pem'],
  );
  assert.equal(
    bundle.files.find((f) => f.path === 'crt-lists/https.crtlist')?.content,
    '/etc/portolan/edge/certs/issued.pem b.test\n',
  );
});

test('user text in health checks cannot escape its config word or start a new line', () => {
  const state = desired({
    pools: [
      pool('web', [member('10.1.0.1', 80)], {
        monitor: { ...monitor, path: "/x'\n    http-request deny", hostHeader: 'a"b $HOME' },
      }),
    ],
  });
  const config = textOf(renderHaproxyBundle(state, options).files.find((f) => f.path === 'haproxy.cfg')?.content ?? '');
  assert.match(config, /http-check send meth GET uri '\/x {4}http-request deny' ver HTTP\/1.1 hdr Host 'a"b \$HOME'/);
  assert.doesNotMatch(config, /^\s+http-request deny$/m);
});

test('property: rendering is deterministic — the same input gives the same bytes', () => {
  const arbMember = fc.record({ a: fc.integer({ min: 1, max: 250 }), p: fc.integer({ min: 1, max: 65535 }) });
  fc.assert(
    fc.property(
      fc.array(arbMember, { maxLength: 12 }),
      fc.array(fc.constantFrom('/a', '/b/c', '/', '/a/b'), { maxLength: 4 }),
      (members, paths) => {
        const state = desired({
          pools: [
            pool(
              'p',
              members.map((m) => member(`10.0.0.${m.a}`, m.p)),
            ),
          ],
          virtualServices: [
            service(
              'http',
              80,
              paths.map((p) => route('h.test', p, 'Prefix', 'p')),
            ),
          ],
        });
        const first = renderHaproxyBundle(state, options);
        const second = renderHaproxyBundle(structuredClone(state), options, []);
        assert.deepEqual(second, first);
        assert.equal(JSON.stringify(second), JSON.stringify(first));
      },
    ),
    { numRuns: 50 },
  );
});
