import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, textOf, type DesiredState, type Pool } from '@portolan/desired-state';
import { HaproxyRenderer, type HaproxyRenderOptions, renderHaproxyBundle } from './render-haproxy-bundle.ts';
import { diffHaproxy } from './diff-haproxy.ts';
import { fromOperation } from './haproxy-operations.ts';
import { patchServerLines } from './patch-server-lines.ts';
import { withSlotChanges } from './diff-slots.ts';
import type { HaproxyBundle } from './haproxy-bundle.ts';
import { desired, member, pool, route, service } from '../testing/desired-fixtures.ts';

const options: HaproxyRenderOptions = {
  configDir: '/etc/portolan/edge',
  defaultAddress: '192.0.2.10',
  sizing: { minFreeSlots: 1, slotIncrement: 2 },
  serverHeader: 'portolan',
  hardStopAfter: '5m',
};

function world(pools: readonly Pool[]): DesiredState {
  return desired({
    pools: [...pools],
    virtualServices: [
      service(
        'http',
        80,
        pools.map((p) => route(`${p.name}.test`, '/', 'Prefix', p.name)),
      ),
    ],
  });
}

const config = (b: HaproxyBundle): string => textOf(b.files.find((f) => f.path === 'haproxy.cfg')!.content);
/** A bundle as a read-back returns it: equal data, no link to the renderer's sections. */
const readBackLike = (b: HaproxyBundle): HaproxyBundle =>
  structuredClone({ ...b, files: b.files.map((f) => ({ path: f.path, content: textOf(f.content) })) });

test('an incremental render equals a fresh render at every step, and reuses every backend it did not change', () => {
  const renderer = new HaproxyRenderer(options);
  let pools = Array.from({ length: 30 }, (_, i) =>
    pool(`p${String(i).padStart(2, '0')}`, [member(`10.0.${i}.1`, 8080), member(`10.0.${i}.2`, 8080)]),
  );
  let slots: HaproxyBundle['backends'] = [];
  let last: HaproxyBundle | null = null;
  for (let step = 0; step < 12; step++) {
    const i = (step * 7) % pools.length;
    if (step === 5) pools = [...pools, pool('p99', [member('10.9.9.9', 80)])];
    else if (step === 8) pools = pools.filter((_, k) => k !== 3);
    else
      pools = pools.map((p, k) =>
        k === i ? pool(p.name, [member(`10.1.${step}.1`, 8080), ...p.members.slice(1)]) : p,
      );
    const state = world(pools);
    const bundle = renderer.render(state, slots);
    assert.equal(canonicalJson(bundle), canonicalJson(renderHaproxyBundle(state, options, slots)), `step ${step}`);
    if (last !== null && step !== 5 && step !== 8) {
      const reused = bundle.backends.filter((b, k) => b === last!.backends[k]).length;
      assert.equal(reused, bundle.backends.length - 1, `step ${step}: one backend re-rendered`);
    }
    slots = bundle.backends;
    last = bundle;
  }
});

test('an endpoint change diffs to server slots plus a server-line patch of haproxy.cfg (never a whole-file rewrite), from a render or a read-back', () => {
  const renderer = new HaproxyRenderer(options);
  const pools = Array.from({ length: 20 }, (_, i) =>
    pool(`p${i}`, [member(`10.0.${i}.1`, 8080), member(`10.0.${i}.2`, 8080)]),
  );
  const before = renderer.render(world(pools), []);
  const moved = pools.map((p, k) => (k === 4 ? pool(p.name, [member('10.7.7.7', 8080), p.members[1]!]) : p));
  const after = renderer.render(world(moved), before.backends);
  for (const observed of [before, readBackLike(before)]) {
    const ops = diffHaproxy(after, observed).map((o) => fromOperation(o)!);
    assert.deepEqual(
      ops.map((o) => o.kind),
      ['server', 'config-slots'],
    );
    const patch = ops[1]!;
    assert.ok(patch.kind === 'config-slots');
    const p4 = after.backends.find((b) => b.name.endsWith(':p4'))!;
    assert.deepEqual(
      patch.backends.map((b) => b.name),
      [p4.name],
    );
    assert.equal(
      patchServerLines(config(before), patch.backends),
      config(after),
      'the patched file is byte for byte the render',
    );
    const server = ops[0]!;
    assert.ok(server.kind === 'server');
    assert.equal(server.slot.address, '10.7.7.7');
  }
  assert.deepEqual(diffHaproxy(after, after), []);
  assert.deepEqual(diffHaproxy(after, readBackLike(after)), []);
  // Slots applied at runtime then shown by a read-back keep the next render's backends in place.
  const p4 = after.backends.find((b) => b.name.endsWith(':p4'))!;
  assert.equal(
    canonicalJson(withSlotChanges(before.backends, [{ backend: p4.name, slot: p4.slots[0]! }])),
    canonicalJson(after.backends),
  );
});

test('a structural change is still one reload, whether the observed bundle came from a render or a read-back', () => {
  const renderer = new HaproxyRenderer(options);
  const pools = Array.from({ length: 5 }, (_, i) => pool(`p${i}`, [member(`10.0.${i}.1`, 8080)]));
  const before = renderer.render(world(pools), []);
  const grown = renderer.render(world([...pools, pool('p9', [member('10.0.9.1', 8080)])]), before.backends);
  for (const observed of [before, readBackLike(before)]) {
    const ops = diffHaproxy(grown, observed).map((o) => fromOperation(o)!);
    assert.deepEqual(
      ops.map((o) => o.kind),
      ['reload'],
    );
  }
});

test('patchServerLines refuses a file whose backend or slots are not where the render put them', () => {
  const b = renderHaproxyBundle(world([pool('p0', [member('10.0.0.1', 8080)])]), options);
  assert.equal(patchServerLines(config(b), [{ name: 'nope', slots: [] }]), null);
  assert.equal(
    patchServerLines(config(b), [
      {
        name: b.backends[0]!.name,
        slots: [...b.backends[0]!.slots, { name: 's99', address: '1.2.3.4', port: 1, state: 'ready', weight: 1 }],
      },
    ]),
    null,
  );
});

test('with the same listeners, a render visits only the backends whose pool or previous slots changed, and equals a fresh render', () => {
  const renderer = new HaproxyRenderer(options);
  let pools = Array.from({ length: 40 }, (_, i) =>
    pool(`p${String(i).padStart(2, '0')}`, [member(`10.0.${i}.1`, 8080), member(`10.0.${i}.2`, 8080)]),
  );
  // The same listener and certificate arrays at every step, as an incremental snapshot decode hands them over.
  const virtualServices = [
    service(
      'http',
      80,
      pools.map((p) => route(`${p.name}.test`, '/', 'Prefix', p.name)),
    ),
  ];
  const certificates: DesiredState['certificates'] = [];
  let last: HaproxyBundle | null = null;
  let deltaSteps = 0;
  for (let step = 0; step < 30; step++) {
    const i = (step * 7) % pools.length;
    pools = pools.map((p, k) =>
      k === i ? pool(p.name, [member(`10.1.${step}.1`, 8080), ...p.members.slice(step % 3 === 0 ? 0 : 1)]) : p,
    );
    // Previous slots as the driver passes them: the last render, a read-back (all new objects), none (a follower),
    // or the last render with one backend's slots replaced (a runtime change applied elsewhere).
    const previous: HaproxyBundle['backends'] =
      last === null
        ? []
        : step % 5 === 0
          ? readBackLike(last).backends
          : step % 7 === 0
            ? []
            : step % 4 === 0
              ? last.backends.map((b, k) => (k === (step * 3) % last!.backends.length ? structuredClone(b) : b))
              : last.backends;
    const state = desired({ pools, virtualServices, certificates });
    const bundle = renderer.render(state, previous);
    assert.equal(canonicalJson(bundle), canonicalJson(renderHaproxyBundle(state, options, previous)), `step ${step}`);
    if (last !== null) {
      // Against the render it came from, the diff compares only the revisited positions: the same operations as a
      // full comparison, and as a comparison with a read-back (no link to the renderer at all).
      const full = canonicalJson(diffHaproxy(bundle, last));
      assert.equal(
        canonicalJson(diffHaproxy(bundle, last, { delta: renderer.deltaOf(bundle) })),
        full,
        `step ${step}: diff by delta`,
      );
      assert.equal(
        canonicalJson(diffHaproxy(bundle, readBackLike(last))),
        full,
        `step ${step}: diff against a read-back`,
      );
      if (renderer.deltaOf(bundle)?.from === last) deltaSteps++;
    }
    if (last !== null && previous === last.backends) {
      const reused = bundle.backends.filter((b, k) => b === last!.backends[k]).length;
      assert.equal(reused, bundle.backends.length - 1, `step ${step}: one backend re-rendered`);
    }
    last = bundle;
  }
  assert.ok(deltaSteps >= 8, `${deltaSteps} steps diffed by delta`);
});

test('previous slots listed in another order than the backends are found by name, never taken from a stale position', () => {
  const renderer = new HaproxyRenderer(options);
  const pools = Array.from({ length: 6 }, (_, i) =>
    pool(`p${i}`, [member(`10.0.${i}.1`, 8080), member(`10.0.${i}.2`, 8080)]),
  );
  const virtualServices = [
    service(
      'http',
      80,
      pools.map((p) => route(`${p.name}.test`, '/', 'Prefix', p.name)),
    ),
  ];
  const certificates: DesiredState['certificates'] = [];
  const state = desired({ pools, virtualServices, certificates });
  const first = renderer.render(state, []);
  const reversed = [...first.backends].reverse();
  assert.equal(
    canonicalJson(renderer.render(state, reversed)),
    canonicalJson(renderHaproxyBundle(state, options, reversed)),
  );
  // The same reversed list with the last backend's slots swapped (its two members trade places), at position 0.
  const last = reversed[0]!;
  const swapped = [
    { ...last, slots: last.slots.map((s, k) => ({ ...s, ...(k < 2 ? { address: last.slots[1 - k]!.address } : {}) })) },
    ...reversed.slice(1),
  ];
  const bundle = renderer.render(state, swapped);
  assert.equal(canonicalJson(bundle), canonicalJson(renderHaproxyBundle(state, options, swapped)));
  assert.notEqual(
    canonicalJson(bundle.backends.at(-1)),
    canonicalJson(first.backends.at(-1)),
    'the swapped slots were honoured',
  );
});

test('a server-line patch of many backends at once (a coalesced burst) gives the render byte for byte', () => {
  const renderer = new HaproxyRenderer(options);
  const pools = Array.from({ length: 40 }, (_, i) =>
    pool(`p${String(i).padStart(2, '0')}`, [member(`10.0.${i}.1`, 8080), member(`10.0.${i}.2`, 8080)]),
  );
  const virtualServices = [
    service(
      'http',
      80,
      pools.map((p) => route(`${p.name}.test`, '/', 'Prefix', p.name)),
    ),
  ];
  const before = renderer.render(desired({ pools, virtualServices }), []);
  const moved = pools.map((p, k) => (k % 3 === 0 ? pool(p.name, [member(`10.8.${k}.8`, 8080), p.members[1]!]) : p));
  const after = renderer.render(desired({ pools: moved, virtualServices }), before.backends);
  const patch = diffHaproxy(after, readBackLike(before))
    .map((o) => fromOperation(o)!)
    .find((o) => o.kind === 'config-slots');
  assert.ok(patch?.kind === 'config-slots' && patch.backends.length === 14, 'fourteen backends in one patch');
  assert.equal(patchServerLines(config(before), patch.backends), config(after));
});

test('a render delta refers to the one bundle before it, never a chain: older bundles are not kept alive by newer ones', () => {
  const renderer = new HaproxyRenderer(options);
  let pools = Array.from({ length: 8 }, (_, i) => pool(`p${i}`, [member(`10.0.${i}.1`, 8080)]));
  const virtualServices = [
    service(
      'http',
      80,
      pools.map((p) => route(`${p.name}.test`, '/', 'Prefix', p.name)),
    ),
  ];
  const certificates: DesiredState['certificates'] = [];
  const bundles: HaproxyBundle[] = [];
  for (let step = 0; step < 4; step++) {
    pools = pools.map((p, k) => (k === step ? pool(p.name, [member(`10.9.${step}.1`, 8080)]) : p));
    bundles.push(renderer.render(desired({ pools, virtualServices, certificates }), bundles.at(-1)?.backends ?? []));
  }
  assert.equal(renderer.deltaOf(bundles[3]!)?.from, bundles[2], 'the newest bundle knows the one before it');
  assert.deepEqual(
    bundles.slice(0, 3).map((b) => renderer.deltaOf(b)),
    [undefined, undefined, undefined],
    'older bundles hold no delta (no reference to their predecessors)',
  );
});
