import type { PoolMember } from '@portolan/desired-state';
import type { BackendSlots, ServerSlot } from './haproxy-bundle.ts';
import { slotIndex, slotName } from './haproxy-names.ts';

/** How many server slots a backend gets: room for its members plus spares, in steps. */
export interface SlotSizing {
  /** Spare slots kept per backend so scale-ups need no reload. */
  readonly minFreeSlots: number;
  /** Slot counts are multiples of this. */
  readonly slotIncrement: number;
}

/** Address of a free slot in the rendered config; never receives traffic because the slot is in maintenance. */
export const FREE_SLOT_ADDRESS = '127.0.0.1';
/** Port of a free slot in the rendered config. */
export const FREE_SLOT_PORT = 1;

/** HAProxy accepts server weights 0..256. */
const MAX_WEIGHT = 256;

/**
 * Places pool members into server slots so that endpoint changes never reshuffle them.
 *
 * Invariants: a member that already sits in a live slot of `previous` keeps that slot; new members take the
 * lowest free slot numbers in (address, port) order; the slot count never shrinks while the members fit (a
 * scale-down costs no reload) and grows to `members + minFreeSlots` rounded up to `slotIncrement` when they do
 * not. The result depends only on the arguments.
 */
export function assignSlots(
  members: readonly PoolMember[],
  previous: BackendSlots | undefined,
  sizing: SlotSizing,
): ServerSlot[] {
  const unique = uniqueMembers(members);
  const previousCount = previous?.slots.length ?? 0;
  const count =
    previous !== undefined && unique.length <= previousCount ? previousCount : targetSlotCount(unique.length, sizing);

  const byIndex = new Map<number, PoolMember>();
  const placed = new Set<string>();
  const wanted = new Map(unique.map((m) => [memberKey(m.address, m.port), m]));
  for (const slot of previous?.slots ?? []) {
    const index = slotIndex(slot.name);
    if (index === null || index > count || slot.state === 'maint') continue;
    const key = memberKey(slot.address, slot.port);
    const member = wanted.get(key);
    if (member === undefined || placed.has(key)) continue;
    byIndex.set(index, member);
    placed.add(key);
  }
  let next = 1;
  for (const member of unique) {
    if (placed.has(memberKey(member.address, member.port))) continue;
    while (byIndex.has(next)) next++;
    byIndex.set(next, member);
  }

  const slots: ServerSlot[] = [];
  for (let index = 1; index <= count; index++) {
    const member = byIndex.get(index);
    slots.push(member === undefined ? freeSlot(index) : memberSlot(index, member));
  }
  return slots;
}

/** The slot count a backend gets when it is (re)sized: members plus spares, rounded up to the increment. */
export function targetSlotCount(memberCount: number, sizing: SlotSizing): number {
  const increment = Math.max(1, sizing.slotIncrement);
  const wanted = Math.max(1, memberCount + Math.max(0, sizing.minFreeSlots));
  return Math.ceil(wanted / increment) * increment;
}

/** A free slot as the config renders it. */
export function freeSlot(index: number): ServerSlot {
  return { name: slotName(index), address: FREE_SLOT_ADDRESS, port: FREE_SLOT_PORT, state: 'maint', weight: 1 };
}

function memberSlot(index: number, member: PoolMember): ServerSlot {
  return {
    name: slotName(index),
    address: member.address,
    port: member.port,
    state: member.state === 'draining' ? 'drain' : 'ready',
    weight: Math.min(MAX_WEIGHT, Math.max(0, Math.round(member.weight))),
  };
}

function uniqueMembers(members: readonly PoolMember[]): PoolMember[] {
  const seen = new Set<string>();
  const out: PoolMember[] = [];
  const sorted = [...members].sort(
    (a, b) => compareText(a.address, b.address) || a.port - b.port || compareText(a.cluster, b.cluster),
  );
  for (const member of sorted) {
    const key = memberKey(member.address, member.port);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(member);
  }
  return out;
}

function memberKey(address: string, port: number): string {
  return `${address}|${port}`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True when two slots would route the same traffic: free slots are equal whatever address they still hold. */
export function isSameSlot(a: ServerSlot, b: ServerSlot): boolean {
  if (a.state === 'maint' && b.state === 'maint') return true;
  return a.state === b.state && a.address === b.address && a.port === b.port && a.weight === b.weight;
}
