import type { Pool } from '@portolan/desired-state';
import { ownerNote } from '@portolan/appliance-driver';
import type { BackendSlots, ServerSlot } from './haproxy-bundle.ts';
import type { BackendMode } from './haproxy-names.ts';
import { hostPort, section } from './config-text.ts';

/**
 * Spare backends: empty backends with server slots that every rendered config carries, so a new pool can be served
 * without a reload. HAProxy cannot add a backend at runtime, but it can point a free server slot at a member and
 * change a map entry; a new pool is therefore *bridged* into a free spare (its members set into the spare's slots,
 * its routes' map entries pointed at the spare), all through the Runtime API. A later *tidy* render gives each pool
 * its own backend again (health checks, persistence, TLS to members) with one reload, off the change's critical path.
 *
 * Which pool sits in which spare is written to `bridges.json` beside haproxy.cfg, so a read-back (a restart, another
 * leader) renders the same placement.
 */

/** The file recording which pool backends are bridged into which spares: `[[pool backend, spare], …]` by name. */
export const BRIDGES_FILE = 'bridges.json';

/** Spare backends per mode never grow past this many (a runaway plan must not grow the config without bound). */
export const MAX_SPARES = 1024;

/** How many spare backends a tidy render keeps per mode, and how many server slots each has. */
export interface SpareSizing {
  /** Spare backends per mode kept by a tidy render (0: none, and every new pool needs a reload). */
  readonly spareBackends?: number;
  /** Server slots per spare backend: a new pool with more members than this is not bridged. */
  readonly spareSlots?: number;
}

/** Defaults when the fleet config sets neither. */
export const DEFAULT_SPARES = { spareBackends: 16, spareSlots: 16 } as const;

const SPARE_NAME = /^spare:(http|tcp):([1-9][0-9]*)$/;

/** The n-th (1-based) spare backend of a mode: `spare:http:1`. */
export function spareName(mode: BackendMode, n: number): string {
  return `spare:${mode}:${n}`;
}

/** The mode of a spare backend's name, or null when the name is not a spare's. */
export function spareMode(name: string): BackendMode | null {
  const match = SPARE_NAME.exec(name);
  return match === null ? null : (match[1] as BackendMode);
}

/** Whether a pool can be served from a spare until the tidy render: a spare cannot speak TLS to members. */
export function bridgeable(pool: Pool): boolean {
  return !pool.tlsToBackend;
}

/**
 * One spare backend's section: plain round robin and its slots. Its shape never depends on the pool bridged into it,
 * so bridging or freeing one changes server lines only (what the Runtime API changes without a reload).
 */
export function renderSpare(name: string, mode: BackendMode, slots: readonly ServerSlot[], appliance: string): string {
  const lines = [
    `# ${ownerNote(appliance, 'spare')}`,
    `mode ${mode}`,
    'balance roundrobin',
    ...slots.map(
      (s) =>
        `server ${s.name} ${hostPort(s.address, s.port)} ${s.state === 'maint' ? 'disabled' : 'enabled'} weight ${s.weight}`,
    ),
  ];
  return section(`backend ${name}`, lines);
}

/** `bridges.json`'s content for a placement (pool backend → spare), sorted by pool backend. */
export function renderBridges(bridges: ReadonlyMap<string, string>): string {
  return `${JSON.stringify([...bridges.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)))}\n`;
}

/** Parses `bridges.json`; anything unreadable is no placement at all (the next render tidies instead of bridging). */
export function parseBridges(text: string | null): ReadonlyMap<string, string> {
  if (text === null) return new Map();
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) return new Map();
    const out = new Map<string, string>();
    for (const entry of parsed) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') return new Map();
      if (spareMode(entry[1]) !== null) out.set(entry[0], entry[1]);
    }
    return out;
  } catch (error) {
    if (error instanceof SyntaxError) return new Map();
    throw error;
  }
}

/** A desired backend: its name when it has its own, the pool (by index) and the mode. */
export interface WantedBackend {
  readonly name: string;
  readonly pool: Pool;
  readonly index: number;
  readonly mode: BackendMode;
}

/** One backend of a render, in config order: a pool's own, a spare holding a bridged pool (`index`), or a free spare. */
export interface PlacedBackend {
  readonly name: string;
  /** The pool's index in `desired.pools`, or -1 for a free spare. */
  readonly index: number;
  readonly mode: BackendMode;
  readonly spare: boolean;
}

/** What the appliance runs, as placement needs it. */
export interface RunningBackends {
  /** Names of every running backend. */
  readonly names: ReadonlySet<string>;
  /** Running spares by name, with their slot counts. */
  readonly spares: ReadonlyMap<string, number>;
  /** The placement `bridges.json` records. */
  readonly bridges: ReadonlyMap<string, string>;
}

/** Where every backend goes, and whether a tidy render is needed instead. */
export interface Placement {
  readonly order: readonly PlacedBackend[];
  /** Pool backend → the spare serving it (empty in a tidy placement). */
  readonly bridges: ReadonlyMap<string, string>;
  /** A pool needs a backend that no free spare can stand in for: only a tidy render (a reload) serves it. */
  readonly needsTidy: boolean;
}

/** Reads the running backends out of an observed bundle's slots and `bridges.json`. */
export function runningBackends(backends: readonly BackendSlots[], bridgesText: string | null): RunningBackends {
  const names = new Set<string>();
  const spares = new Map<string, number>();
  for (const b of backends) {
    names.add(b.name);
    if (spareMode(b.name) !== null) spares.set(b.name, b.slots.length);
  }
  return { names, spares, bridges: parseBridges(bridgesText) };
}

/**
 * Places the wanted backends (sorted by name) on what runs. A running pool backend is kept; a pool bridged before keeps
 * its spare; a new pool takes the lowest free spare of its mode that has room for its members. A tidy placement gives
 * every pool its own backend and keeps `spareBackends` free spares per mode needed (doubling them when the running
 * ones ran out, so capacity grows geometrically), or the ones that run, whichever is more.
 */
export function placeBackends(
  wanted: readonly WantedBackend[],
  running: RunningBackends,
  sizing: SpareSizing,
  tidy: boolean,
  modes: ReadonlySet<BackendMode>,
): Placement {
  const bridges = new Map<string, string>();
  const taken = new Set<string>();
  const unplaced: WantedBackend[] = [];
  for (const w of wanted) {
    if (running.names.has(w.name)) continue;
    const before = running.bridges.get(w.name);
    if (before !== undefined && fits(w, before, running, taken)) {
      bridges.set(w.name, before);
      taken.add(before);
    } else unplaced.push(w);
  }
  const exhausted = new Set<BackendMode>();
  for (const w of unplaced) {
    const free = bridgeable(w.pool) ? freeSpare(w, running, taken) : null;
    if (free === null) {
      exhausted.add(w.mode);
      continue;
    }
    bridges.set(w.name, free);
    taken.add(free);
  }
  if (tidy)
    return { order: tidyOrder(wanted, running, sizing, modes, exhausted), bridges: new Map(), needsTidy: false };
  const order: PlacedBackend[] = wanted
    .filter((w) => !bridges.has(w.name))
    .map((w) => ({ name: w.name, index: w.index, mode: w.mode, spare: false }));
  const bridged = new Map([...bridges].map(([own, spare]) => [spare, own]));
  const indexOf = new Map(wanted.map((w) => [w.name, w.index]));
  for (const name of running.spares.keys()) {
    const own = bridged.get(name);
    order.push({ name, index: own === undefined ? -1 : indexOf.get(own)!, mode: spareMode(name)!, spare: true });
  }
  order.sort(byName);
  return { order, bridges, needsTidy: exhausted.size > 0 };
}

function fits(w: WantedBackend, spare: string, running: RunningBackends, taken: ReadonlySet<string>): boolean {
  const slots = running.spares.get(spare);
  return slots !== undefined && !taken.has(spare) && spareMode(spare) === w.mode && memberCount(w.pool) <= slots;
}

function freeSpare(w: WantedBackend, running: RunningBackends, taken: ReadonlySet<string>): string | null {
  let best: { name: string; n: number } | null = null;
  for (const name of running.spares.keys()) {
    if (!fits(w, name, running, taken)) continue;
    const n = Number(name.slice(name.lastIndexOf(':') + 1));
    if (best === null || n < best.n) best = { name, n };
  }
  return best?.name ?? null;
}

/** Distinct members (address and port): what a backend needs slots for. */
function memberCount(pool: Pool): number {
  return new Set(pool.members.map((m) => `${m.address}|${m.port}`)).size;
}

function tidyOrder(
  wanted: readonly WantedBackend[],
  running: RunningBackends,
  sizing: SpareSizing,
  modes: ReadonlySet<BackendMode>,
  exhausted: ReadonlySet<BackendMode>,
): PlacedBackend[] {
  const order: PlacedBackend[] = wanted.map((w) => ({ name: w.name, index: w.index, mode: w.mode, spare: false }));
  for (const mode of modes) {
    let runningCount = 0;
    for (const name of running.spares.keys()) if (spareMode(name) === mode) runningCount++;
    const base = Math.max(sizing.spareBackends ?? 0, runningCount);
    const count = Math.min(MAX_SPARES, exhausted.has(mode) && runningCount > 0 ? 2 * base : base);
    for (let n = 1; n <= count; n++) order.push({ name: spareName(mode, n), index: -1, mode, spare: true });
  }
  return order.sort(byName);
}

function byName(a: { readonly name: string }, b: { readonly name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
