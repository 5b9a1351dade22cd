import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assignSlots, targetSlotCount } from './assign-slots.ts';
import type { BackendSlots } from './haproxy-bundle.ts';
import { member } from '../testing/desired-fixtures.ts';

const sizing = { minFreeSlots: 2, slotIncrement: 4 };

/** Slot contents as `addr:port` ('-' for a free slot), for compact comparisons. */
function layout(slots: readonly { address: string; port: number; state: string }[]): string[] {
  return slots.map((s) => (s.state === 'maint' ? '-' : `${s.address}:${s.port}`));
}

function previous(name: string, entries: readonly string[]): BackendSlots {
  return {
    name,
    slots: entries.map((e, i) => {
      if (e === '-') return { name: `s${i + 1}`, address: '10.9.9.9', port: 7, state: 'maint' as const, weight: 1 };
      const [address = '', port = ''] = e.split(':');
      return { name: `s${i + 1}`, address, port: Number(port), state: 'ready' as const, weight: 1 };
    }),
  };
}

test('a new backend gets members + minFreeSlots rounded up to the increment, members in address order', () => {
  const slots = assignSlots(
    [member('10.0.0.2', 80), member('10.0.0.1', 80), member('10.0.0.3', 80)],
    undefined,
    sizing,
  );
  assert.deepEqual(layout(slots), ['10.0.0.1:80', '10.0.0.2:80', '10.0.0.3:80', '-', '-', '-', '-', '-']);
  assert.deepEqual(
    slots.map((s) => s.name),
    ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8'],
  );
  assert.equal(targetSlotCount(0, sizing), 4);
  assert.equal(targetSlotCount(2, sizing), 4);
  assert.equal(targetSlotCount(3, sizing), 8);
});

test('members keep their slots; a removed member frees its slot; a new one takes the lowest free slot', () => {
  const before = previous('b', ['10.0.0.1:80', '10.0.0.2:80', '10.0.0.3:80', '-']);
  const slots = assignSlots([member('10.0.0.3', 80), member('10.0.0.1', 80), member('10.0.0.9', 80)], before, sizing);
  assert.deepEqual(layout(slots), ['10.0.0.1:80', '10.0.0.9:80', '10.0.0.3:80', '-']);
});

test('the slot count never shrinks while members fit, and grows with spares when they do not', () => {
  const big = previous('b', ['10.0.0.1:80', '10.0.0.2:80', '-', '-', '-', '-', '-', '-']);
  assert.equal(assignSlots([member('10.0.0.2', 80)], big, sizing).length, 8);
  const full = previous('b', ['10.0.0.1:80', '10.0.0.2:80', '10.0.0.3:80', '10.0.0.4:80']);
  const grown = assignSlots(
    [1, 2, 3, 4, 5].map((i) => member(`10.0.0.${i}`, 80)),
    full,
    sizing,
  );
  assert.deepEqual(layout(grown), [
    '10.0.0.1:80',
    '10.0.0.2:80',
    '10.0.0.3:80',
    '10.0.0.4:80',
    '10.0.0.5:80',
    '-',
    '-',
    '-',
  ]);
});

test('draining members drain, weights are clamped to what HAProxy accepts, duplicates take one slot', () => {
  const slots = assignSlots(
    [
      member('10.0.0.1', 80, { state: 'draining', weight: 3 }),
      member('10.0.0.2', 80, { weight: 999 }),
      member('10.0.0.2', 80, { cluster: 'c2' }),
    ],
    undefined,
    sizing,
  );
  assert.deepEqual(slots.slice(0, 3), [
    { name: 's1', address: '10.0.0.1', port: 80, state: 'drain', weight: 3 },
    { name: 's2', address: '10.0.0.2', port: 80, state: 'ready', weight: 256 },
    { name: 's3', address: '127.0.0.1', port: 1, state: 'maint', weight: 1 },
  ]);
});

test('property: every member that stays keeps its slot, and every member gets exactly one slot', () => {
  const address = fc.integer({ min: 1, max: 40 }).map((i) => `10.0.0.${i}`);
  fc.assert(
    fc.property(
      fc.uniqueArray(address, { maxLength: 20 }),
      fc.uniqueArray(address, { maxLength: 20 }),
      (first, second) => {
        const before = assignSlots(
          first.map((a) => member(a, 80)),
          undefined,
          sizing,
        );
        const after = assignSlots(
          second.map((a) => member(a, 80)),
          { name: 'b', slots: before },
          sizing,
        );
        for (const a of second) {
          const was = before.findIndex((s) => s.state !== 'maint' && s.address === a);
          const now = after.findIndex((s) => s.state !== 'maint' && s.address === a);
          assert.ok(now >= 0, `member ${a} has a slot`);
          if (was >= 0) assert.equal(now, was, `member ${a} kept its slot`);
        }
        assert.equal(after.filter((s) => s.state !== 'maint').length, second.length);
      },
    ),
  );
});
