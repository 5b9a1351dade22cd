import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JoinedText, type DesiredState, type JsonObject } from '@portolan/desired-state';
import { diffHaproxy } from './diff-haproxy.ts';
import { type HaproxyRenderOptions, renderHaproxyBundle } from './render-haproxy-bundle.ts';
import type { HaproxyBundle } from './haproxy-bundle.ts';
import { fromOperation } from './haproxy-operations.ts';
import { certificate, desired, member, pool, route, service } from '../testing/desired-fixtures.ts';

const options: HaproxyRenderOptions = {
  configDir: '/srv/haproxy',
  defaultAddress: '127.0.0.1',
  sizing: { minFreeSlots: 1, slotIncrement: 2 },
  serverHeader: 'portolan',
  hardStopAfter: '5m',
};

function state(members: readonly string[], hosts: readonly string[] = ['a.test'], fingerprint = 'fp1'): DesiredState {
  return desired({
    pools: [
      pool(
        'web',
        members.map((a) => member(a, 80)),
      ),
    ],
    certificates: [certificate('tls', ['a.test'], fingerprint)],
    virtualServices: [
      service(
        'http',
        80,
        hosts.map((h) => route(h, '/', 'Prefix', 'web')),
      ),
      service('https', 443, [route('a.test', '/', 'Prefix', 'web')], { protocol: 'https', certificates: ['tls'] }),
    ],
  });
}

function summaries(desiredBundle: HaproxyBundle, observed: HaproxyBundle): string[] {
  return diffHaproxy(desiredBundle, observed).map((op) => `${op.objectType} ${op.objectName}`);
}

/** Read-backs in these cases equal the rendered bundle: what HAProxy holds after applying it fully. */
const base = renderHaproxyBundle(state(['10.0.0.1']), options);

const cases: { name: string; next: HaproxyBundle; observed?: HaproxyBundle; want: string[] }[] = [
  { name: 'equal bundles need nothing', next: base, want: [] },
  {
    name: 'a new member is one slot write plus its server line in haproxy.cfg — no reload',
    next: renderHaproxyBundle(state(['10.0.0.1', '10.0.0.2']), options, base.backends),
    want: ['server http:web/s2', 'config-slots haproxy.cfg'],
  },
  {
    name: 'a removed member frees its slot — no reload',
    next: renderHaproxyBundle(state([]), options, base.backends),
    want: ['server http:web/s1', 'config-slots haproxy.cfg'],
  },
  {
    name: 'more members than slots is structural: one reload and nothing else',
    next: renderHaproxyBundle(state(['10.0.0.1', '10.0.0.2', '10.0.0.3']), options, base.backends),
    want: ['reload haproxy.cfg'],
  },
  {
    name: 'a new host on an existing backend is a map change — no reload',
    next: renderHaproxyBundle(state(['10.0.0.1'], ['a.test', 'b.test']), options, base.backends),
    want: ['map maps/http.hosts.map', 'map maps/http.prefix.map'],
  },
  {
    name: 'new certificate material for a served certificate is a runtime certificate update',
    next: renderHaproxyBundle(state(['10.0.0.1'], ['a.test'], 'fp2'), options, base.backends),
    want: ['ssl-cert certs/tls.pem'],
  },
  {
    name: 'a map the running process has not loaded needs a reload even when the files agree',
    next: base,
    observed: { ...base, maps: base.maps.filter((m) => m.path !== 'maps/http.prefix.map') },
    want: ['reload haproxy.cfg'],
  },
  {
    name: 'a map file edited on disk is rewritten (and re-pushed) — no reload',
    next: base,
    observed: {
      ...base,
      files: base.files.map((f) => (f.path === 'maps/http.prefix.map' ? { ...f, content: '' } : f)),
    },
    want: ['map maps/http.prefix.map'],
  },
  {
    name: 'a slot changed out of band is put back',
    next: base,
    observed: {
      ...base,
      backends: [
        {
          name: 'http:web',
          slots: base.backends[0]!.slots.map((s, i) => (i === 0 ? { ...s, state: 'maint' as const } : s)),
        },
      ],
    },
    want: ['server http:web/s1'],
  },
];

for (const c of cases) {
  test(`diff: ${c.name}`, () => {
    assert.deepEqual(summaries(c.next, c.observed ?? base), c.want);
  });
}

test('diff: a reload carries the whole desired bundle and names why', () => {
  const next = renderHaproxyBundle(state(['10.0.0.1', '10.0.0.2', '10.0.0.3']), options, base.backends);
  const [op] = diffHaproxy(next, base);
  const decoded = op === undefined ? null : fromOperation(op);
  assert.ok(decoded?.kind === 'reload');
  assert.deepEqual(decoded.files, next.files);
  assert.deepEqual(decoded.backends, next.backends);
  assert.deepEqual(decoded.reasons, ['backend http:web changed']);
  assert.equal(op?.summary, 'reload: backend http:web changed');
});

test("diff: a reload payload holds haproxy.cfg as the render's sections, its text joined only when read", () => {
  const next = renderHaproxyBundle(state(['10.0.0.1', '10.0.0.2', '10.0.0.3']), options, base.backends);
  const [op] = diffHaproxy(next, base);
  const config = next.files.find((f) => f.path === 'haproxy.cfg')!;
  const sent = (op?.payload?.['files'] as JsonObject[]).find((f) => f['path'] === 'haproxy.cfg')!;
  // The apply log's value tree stores the same section pieces as the read-back holding this render.
  assert.ok(config.content instanceof JoinedText);
  assert.equal((sent['content'] as unknown as JoinedText).parts, config.content.parts);
  assert.equal(sent['content'], config.content);
  assert.deepEqual(JSON.parse(JSON.stringify(op?.payload)).backends, next.backends);
});

test('diff: an empty appliance gets one reload naming what is added', () => {
  const empty: HaproxyBundle = { files: [], backends: [], maps: [], certificates: [] };
  const [op, ...rest] = diffHaproxy(base, empty);
  assert.equal(rest.length, 0);
  assert.equal(op?.summary, 'reload: no configuration on disk; crt-list crt-lists/https.crtlist changed');
});

test('diff: free slots compare equal whatever address they still hold (no pointless writes)', () => {
  const observed: HaproxyBundle = {
    ...base,
    backends: [
      {
        name: 'http:web',
        slots: base.backends[0]!.slots.map((s) => (s.state === 'maint' ? { ...s, address: '10.9.9.9', port: 7 } : s)),
      },
    ],
  };
  assert.deepEqual(diffHaproxy(base, observed), []);
});
