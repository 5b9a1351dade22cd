import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DesiredState, Pool, PoolMember } from '@portolan/desired-state';
import fc from 'fast-check';
import { checkSafety } from './safety-hold.ts';
import { applyFailStatic, staleClusters } from './fail-static.ts';

const member = (address: string, cluster = 'c1', state: PoolMember['state'] = 'active'): PoolMember => ({ address, port: 8080, state, weight: 1, cluster, node: '' });
const pool = (name: string, members: PoolMember[]): Pool => ({ name, members, monitor: null, persistence: null, tlsToBackend: false, customization: null, services: [] });
const ref = { cluster: 'c1', kind: 'Ingress' as const, namespace: 'n', name: 'i' };
const state = (hosts: string[], pools: Pool[]): DesiredState => ({
  appliance: 'lb',
  driver: 'haproxy',
  virtualServices: [
    { name: 'default~80', address: { kind: 'default' }, port: 80, protocol: 'http', owners: [ref], certificates: [], routes: hosts.map((host) => ({ host, path: '/', match: 'Prefix' as const, pool: 'p', source: ref })), defaultPool: null, redirectToHttpsPort: null, requestScript: null, responseScript: null, customization: null },
  ],
  pools,
  certificates: [],
  bindings: [],
  conditions: [],
});
const hosts = (n: number) => Array.from({ length: n }, (_, i) => `h${i}.example.com`);
const members = (n: number, cluster = 'c1') => Array.from({ length: n }, (_, i) => member(`10.0.0.${i + 1}`, cluster));

test('safety hold: removing more than 30% of the hosts last applied holds the plan', () => {
  const v = checkSafety(state(hosts(10), []), state(hosts(6), []), 0.3, false);
  assert.equal(v.held, true);
  assert.deepEqual(v.held ? v.reasons.map((r) => r.reason) : [], ['TooManyHostsRemoved']);
  assert.match(v.held ? v.reasons[0]!.message : '', /removes 4 of 10 hosts \(40%; limit 30%\)/);
});

test('safety hold: exactly the limit passes; the first plan (nothing applied yet) passes', () => {
  assert.deepEqual(checkSafety(state(hosts(10), []), state(hosts(7), []), 0.3, false), { held: false, overridden: [] });
  assert.deepEqual(checkSafety(null, state([], []), 0.3, false), { held: false, overridden: [] });
});

test('safety hold: removing more than 30% of backend members holds; draining is not removal', () => {
  const before = state(hosts(1), [pool('p', members(10))]);
  const drained = state(hosts(1), [pool('p', members(10).map((m, i) => (i < 5 ? { ...m, state: 'draining' as const } : m)))]);
  assert.equal(checkSafety(before, drained, 0.3, false).held, false);
  const v = checkSafety(before, state(hosts(1), [pool('p', members(6))]), 0.3, false);
  assert.deepEqual(v.held ? v.reasons.map((r) => r.reason) : [], ['TooManyMembersRemoved']);
});

test('safety hold: emptying a pool that had members holds it, even when the fraction is small', () => {
  const before = state(hosts(1), [pool('big', members(20)), pool('small', [member('10.9.0.1')])]);
  const v = checkSafety(before, state(hosts(1), [pool('big', members(20)), pool('small', [])]), 0.3, false);
  assert.deepEqual(v.held ? v.reasons.map((r) => [r.reason, r.message]) : [], [['PoolEmptied', 'the plan empties pool small (it had 1 members)']]);
});

test('safety hold: an override lets the plan through and reports what it overrode', () => {
  const v = checkSafety(state(hosts(10), []), state([], []), 0.3, true);
  assert.equal(v.held, false);
  assert.deepEqual(v.held ? [] : v.overridden.map((r) => r.reason), ['TooManyHostsRemoved']);
});

test('fail-static: a cluster is stale without a recent heartbeat (or none at all)', () => {
  const now = 1_000_000;
  const stale = staleClusters(new Map([['east', now - 10_000], ['west', now - 70_000]]), [{ name: 'east', staleAfterSeconds: 60 }, { name: 'west', staleAfterSeconds: 60 }, { name: 'north', staleAfterSeconds: 60 }], now);
  assert.deepEqual([...stale].sort(), ['north', 'west']);
});

test('fail-static: a stale cluster keeps its last applied members while healthy clusters follow the plan', () => {
  const applied = state(hosts(1), [pool('p', [...members(2, 'east'), ...members(3, 'west').map((m) => ({ ...m, address: m.address.replace('10.0.0', '10.5.0') }))])]);
  const plan = state(hosts(1), [pool('p', [member('10.0.0.9', 'east')])]);
  const out = applyFailStatic(applied, plan, new Set(['west']));
  assert.deepEqual(out.pools[0]!.members.map((m) => `${m.address}@${m.cluster}`), ['10.0.0.9@east', '10.5.0.1@west', '10.5.0.2@west', '10.5.0.3@west']);
  assert.equal(applyFailStatic(applied, plan, new Set()), plan, 'no stale cluster: the plan as is');
});

test('safety hold: a plan sharing unchanged pools with the last applied state gets the verdict of an unshared copy', () => {
  const pools = Array.from({ length: 20 }, (_, i) => pool(`p${String(i).padStart(2, '0')}`, members(5)));
  const before = state(hosts(3), pools);
  for (const [changed, keep] of [[[3], 0], [[1, 2, 3, 4, 5, 6, 7], 0], [[1, 2, 3, 4, 5, 6, 7], 1], [[0, 9], 5]] as const) {
    // The plan reuses every pool object it does not change, as the incremental snapshot reader returns them.
    const plan = { ...before, pools: pools.map((p, i) => ((changed as readonly number[]).includes(i) ? pool(p.name, members(keep)) : p)) };
    assert.deepEqual(checkSafety(before, plan, 0.3, false), checkSafety(structuredClone(before), structuredClone(plan), 0.3, false));
  }
  const shared = { ...before, pools: [...pools] };
  assert.deepEqual(checkSafety(before, shared, 0.3, false), { held: false, overridden: [] });
});

test('property: along a chain of plans that share unchanged pools, every verdict equals that of unshared copies (member counts carried from plan to plan)', () => {
  const step = fc.record({
    change: fc.array(fc.tuple(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 6 })), { maxLength: 4 }),
    drop: fc.option(fc.integer({ min: 0, max: 11 }), { nil: null }),
    add: fc.option(fc.integer({ min: 12, max: 15 }), { nil: null }),
  });
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), fc.constantFrom(0.1, 0.3, 0.6), (steps, fraction) => {
      let current = state(hosts(2), Array.from({ length: 12 }, (_, i) => pool(`p${String(i).padStart(2, '0')}`, members(3))));
      for (const s of steps) {
        let pools = current.pools.slice();
        for (const [i, n] of s.change) if (pools[i] !== undefined) pools[i] = pool(pools[i]!.name, members(n));
        if (s.drop !== null && pools[s.drop] !== undefined) pools.splice(s.drop, 1);
        if (s.add !== null && !pools.some((p) => p.name === `p${s.add}`)) pools = [...pools, pool(`p${s.add}`, members(2))].sort((a, b) => (a.name < b.name ? -1 : 1));
        const next = { ...current, pools };
        assert.deepEqual(checkSafety(current, next, fraction, false), checkSafety(structuredClone(current), structuredClone(next), fraction, false));
        current = next;
      }
    }),
    { numRuns: 300 },
  );
});
