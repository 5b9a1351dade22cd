import { test } from 'node:test';
import assert from 'node:assert/strict';
import { textOf, type DesiredState, type Pool } from '@portolan/desired-state';
import { HaproxyCore } from './haproxy-core.ts';
import type { HaproxyBundle } from './haproxy-bundle.ts';
import { BRIDGES_FILE, parseBridges, placeBackends, runningBackends } from './spare-backends.ts';
import type { HaproxyRenderOptions } from './render-parts.ts';
import { certificate, desired, member, pool, route, service } from '../testing/desired-fixtures.ts';

const options: HaproxyRenderOptions = {
  configDir: '/srv/haproxy',
  defaultAddress: '127.0.0.1',
  sizing: { minFreeSlots: 1, slotIncrement: 2, spareBackends: 2, spareSlots: 4 },
  serverHeader: 'portolan',
  hardStopAfter: '5m',
};

/** A world of `hosts` on one HTTP listener, each host its own pool `<host>` with one member per address. */
function world(hosts: Readonly<Record<string, readonly string[]>>, extra: Partial<Pool> = {}): DesiredState {
  const names = Object.keys(hosts).sort();
  return desired({
    pools: names.map((h) =>
      pool(
        h,
        hosts[h]!.map((a) => member(a, 80)),
        extra,
      ),
    ),
    virtualServices: [
      service(
        'http',
        80,
        names.map((h) => route(h, '/', 'Prefix', h)),
      ),
    ],
  });
}

function kinds(core: HaproxyCore, next: HaproxyBundle, observed: HaproxyBundle): string[] {
  return core.diff(next, observed).map((op) => `${op.objectType} ${op.objectName}`);
}

function bridges(bundle: HaproxyBundle): [string, string][] {
  const file = bundle.files.find((f) => f.path === BRIDGES_FILE);
  return [...parseBridges(file === undefined ? null : textOf(file.content))];
}

function backendNames(bundle: HaproxyBundle): string[] {
  return bundle.backends.map((b) => b.name);
}

/** What a read-back returns for an applied bundle: the same content with haproxy.cfg as one plain string. */
function asReadBack(bundle: HaproxyBundle): HaproxyBundle {
  return { ...bundle, files: bundle.files.map((f) => ({ path: f.path, content: textOf(f.content) })) };
}

test('a new host and Service are served from a spare through the Runtime API; the tidy render reloads once', () => {
  const core = new HaproxyCore(options);
  const start = core.render(world({ 'a.test': ['10.0.0.1'] }), null);
  assert.deepEqual(backendNames(start), ['http:a.test', 'spare:http:1', 'spare:http:2']);
  assert.equal(core.provisional(start), false);

  const grown = world({ 'a.test': ['10.0.0.1'], 'b.test': ['10.0.1.1', '10.0.1.2'] });
  const bridged = core.render(grown, start);
  assert.deepEqual(bridges(bridged), [['http:b.test', 'spare:http:1']]);
  assert.equal(core.provisional(bridged), true);
  assert.deepEqual(kinds(core, bridged, start), [
    'server spare:http:1/s1',
    'server spare:http:1/s2',
    'map maps/http.hosts.map',
    'map maps/http.prefix.map',
    'file bridges.json',
    'config-slots haproxy.cfg',
  ]);
  const prefix = bridged.maps.find((m) => m.path === 'maps/http.prefix.map')!;
  assert.deepEqual(prefix.entries, [
    ['a.test/', 'http:a.test'],
    ['b.test/', 'spare:http:1'],
  ]);

  // Its endpoints keep changing through the spare's slots; the placement holds on a read-back too.
  const scaled = world({ 'a.test': ['10.0.0.1'], 'b.test': ['10.0.1.1', '10.0.1.2', '10.0.1.3'] });
  const again = core.render(scaled, asReadBack(bridged));
  assert.deepEqual(bridges(again), [['http:b.test', 'spare:http:1']]);
  assert.deepEqual(kinds(core, again, asReadBack(bridged)), ['server spare:http:1/s3', 'config-slots haproxy.cfg']);

  const tidy = core.render(scaled, again, { tidy: true });
  assert.deepEqual(bridges(tidy), []);
  assert.equal(core.provisional(tidy), false);
  assert.deepEqual(backendNames(tidy), ['http:a.test', 'http:b.test', 'spare:http:1', 'spare:http:2']);
  assert.deepEqual(kinds(core, tidy, again), ['reload haproxy.cfg']);
  assert.deepEqual(
    tidy.backends.find((b) => b.name === 'spare:http:1')!.slots.map((s) => s.state),
    ['maint', 'maint', 'maint', 'maint'],
    'the spare is free again after the tidy render',
  );
  // After the tidy reload, the next render of the same world is the tidy one: nothing to do.
  assert.deepEqual(kinds(core, core.render(scaled, tidy), tidy), []);
});

test('when the spares run out the render is tidy (one reload), and the next tidy render doubles them', () => {
  const core = new HaproxyCore(options);
  const start = core.render(world({ 'a.test': ['10.0.0.1'] }), null);
  const three = world({
    'a.test': ['10.0.0.1'],
    'b.test': ['10.0.1.1'],
    'c.test': ['10.0.2.1'],
    'd.test': ['10.0.3.1'],
  });
  const next = core.render(three, start);
  assert.deepEqual(bridges(next), [], 'no half-bridged render: everything gets its own backend');
  assert.deepEqual(kinds(core, next, start), ['reload haproxy.cfg']);
  assert.deepEqual(
    backendNames(next).filter((n) => n.startsWith('spare:')),
    ['spare:http:1', 'spare:http:2', 'spare:http:3', 'spare:http:4'],
  );
});

test('a pool that speaks TLS to its members, or a change that reloads anyway, is never bridged', () => {
  const core = new HaproxyCore(options);
  const start = core.render(world({ 'a.test': ['10.0.0.1'] }), null);
  const tls = desired({
    pools: [
      pool('a.test', [member('10.0.0.1', 80)]),
      pool('b.test', [member('10.0.1.1', 443)], { tlsToBackend: true }),
    ],
    virtualServices: [
      service('http', 80, [route('a.test', '/', 'Prefix', 'a.test'), route('b.test', '/', 'Prefix', 'b.test')]),
    ],
  });
  const reencrypt = core.render(tls, start);
  assert.deepEqual(bridges(reencrypt), []);
  assert.deepEqual(kinds(core, reencrypt, start), ['reload haproxy.cfg']);

  const core2 = new HaproxyCore(options);
  const start2 = core2.render(world({ 'a.test': ['10.0.0.1'] }), null);
  const withListener = desired({
    pools: [pool('a.test', [member('10.0.0.1', 80)]), pool('b.test', [member('10.0.1.1', 80)])],
    certificates: [certificate('b-tls', ['b.test'])],
    virtualServices: [
      service('http', 80, [route('a.test', '/', 'Prefix', 'a.test'), route('b.test', '/', 'Prefix', 'b.test')]),
      service('https', 443, [route('b.test', '/', 'Prefix', 'b.test')], { protocol: 'https', certificates: ['b-tls'] }),
    ],
  });
  const both = core2.render(withListener, start2);
  assert.deepEqual(bridges(both), [], 'a new listener reloads anyway: the reload gives the pool its own backend');
  assert.ok(backendNames(both).includes('http:b.test'));
});

test('a bridged pool that is removed frees its spare without a reload', () => {
  const core = new HaproxyCore(options);
  const start = core.render(world({ 'a.test': ['10.0.0.1'] }), null);
  const bridged = core.render(world({ 'a.test': ['10.0.0.1'], 'b.test': ['10.0.1.1'] }), start);
  const back = core.render(world({ 'a.test': ['10.0.0.1'] }), bridged);
  assert.deepEqual(bridges(back), []);
  assert.deepEqual(kinds(core, back, bridged), [
    'server spare:http:1/s1',
    'map maps/http.hosts.map',
    'map maps/http.prefix.map',
    'file bridges.json',
    'config-slots haproxy.cfg',
  ]);
});

test('placement keeps a pool in its spare, takes the lowest free one, and doubles only when they ran out', () => {
  const wanted = (names: string[]) =>
    names.map((name, index) => ({ name, index, mode: 'http' as const, pool: pool(name, [member('10.0.0.1', 80)]) }));
  const running = {
    names: new Set(['http:a', 'spare:http:1', 'spare:http:2', 'spare:http:3']),
    spares: new Map([
      ['spare:http:1', 4],
      ['spare:http:2', 4],
      ['spare:http:3', 4],
    ]),
    bridges: new Map([['http:c', 'spare:http:2']]),
  };
  const modes = new Set(['http' as const]);
  const placed = placeBackends(wanted(['http:a', 'http:b', 'http:c']), running, { spareBackends: 3 }, false, modes);
  assert.equal(placed.needsTidy, false);
  assert.deepEqual(
    [...placed.bridges],
    [
      ['http:c', 'spare:http:2'],
      ['http:b', 'spare:http:1'],
    ],
  );
  const full = placeBackends(wanted(['http:a', 'http:b', 'http:c', 'http:d', 'http:e']), running, {}, false, modes);
  assert.equal(full.needsTidy, true);
  const tidy = placeBackends(wanted(['http:a', 'http:b', 'http:c', 'http:d', 'http:e']), running, {}, true, modes);
  assert.equal(tidy.order.filter((o) => o.spare).length, 6, 'three running spares ran out: six after the tidy render');
  const calm = placeBackends(wanted(['http:a', 'http:b']), running, {}, true, modes);
  assert.equal(calm.order.filter((o) => o.spare).length, 3, 'no shortage: the count stays');
  assert.equal(runningBackends([], '{not json').bridges.size, 0, 'an unreadable bridges.json is no placement');
});
