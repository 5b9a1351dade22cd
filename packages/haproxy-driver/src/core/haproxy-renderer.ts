import type { RenderMode } from '@portolan/appliance-driver';
import { JoinedText, type DesiredState, type Pool, type VirtualService } from '@portolan/desired-state';
import {
  type BackendSlots,
  type BundleFile,
  type HaproxyBundle,
  type MapContent,
  emptyBundle,
} from './haproxy-bundle.ts';
import { assignSlots, freeSlot } from './assign-slots.ts';
import { renderBackend } from './render-backend.ts';
import { CONFIG_FILE, defaultsSection, globalSection, header } from './fixed-sections.ts';
import { structuralChanges } from './diff-haproxy.ts';
import { type FrontendParts, renderFrontends } from './render-frontends.ts';
import {
  type HaproxyRenderOptions,
  type PoolNames,
  type RenderDelta,
  backendModes,
  byPath,
  poolNames,
  sameNames,
  spareModes,
} from './render-parts.ts';
import {
  BRIDGES_FILE,
  DEFAULT_SPARES,
  type PlacedBackend,
  type Placement,
  placeBackends,
  renderBridges,
  renderSpare,
  runningBackends,
} from './spare-backends.ts';

/** How a render may place pools: bridged into spares where that saves a reload, or tidy (every pool its own). */
export type { RenderMode };

/** The last render's inputs and outputs by position, for the positional fast path (see `#changedPositions`). */
interface LastRender {
  readonly order: readonly PlacedBackend[];
  readonly pools: readonly Pool[];
  readonly previous: readonly BackendSlots[];
  readonly backends: readonly BackendSlots[];
  readonly texts: readonly string[];
  /** Backend positions by pool index (valid while the order is). */
  readonly positionsOfPool: readonly (readonly number[])[];
  /** Whether every backend found its previous slots by position (or `previous` was empty). */
  readonly positional: boolean;
}

interface BackendMemo {
  readonly pool: Pool | null;
  readonly mode: string;
  readonly previous: BackendSlots | undefined;
  readonly slots: BackendSlots;
  readonly text: string;
}

/** The backend layout and what it was computed from. */
interface Layout {
  readonly virtualServices: readonly VirtualService[];
  readonly names: PoolNames;
  /** The placement inputs besides the desired state: tidy or not, and what runs (see `#placementKey`). */
  readonly key: string;
  readonly placement: Placement;
  readonly bridgesFile: BundleFile;
  /** Every pool backend (by its own name) and its mode. */
  readonly modes: ReadonlyMap<string, unknown>;
}

/** One render's outcome: the bundle, and whether it must be replaced by a tidy one. */
interface Attempt {
  /** Null when the attempt stopped early because only a tidy render can serve the change. */
  readonly bundle: HaproxyBundle | null;
  /** Always false for a tidy attempt. */
  readonly wantsTidy: boolean;
}

/**
 * Renders a desired state into the bundle HAProxy should run, with memory: a render reuses every backend whose pool
 * object, mode and previous slots are the ones it rendered last time, and every frontend when listeners, pool names,
 * placement and certificates are unchanged, so an endpoint change in a 10k-backend world re-renders one backend. The
 * output is identical to a fresh render (a test checks it); unchanged parts keep their object identity, which lets
 * `diffHaproxy` skip them.
 *
 * Placement (see `spare-backends.ts`): a pool whose backend HAProxy does not run yet is bridged into a free spare
 * backend when it can be, so it is served through the Runtime API; when it cannot (no free spare with room, TLS to
 * members, or anything else in the change needs a reload anyway), the render is tidy: every pool in its own backend.
 *
 * Its fields are a memo of its own earlier renders, not of the appliance: they change how fast a render is, never
 * what it returns (what the appliance holds comes in as `observed`).
 */
export class HaproxyRenderer {
  readonly #options: HaproxyRenderOptions;
  /** Each bundle this renderer made by the positional shortcut, with what it changed (see `deltaOf`). */
  readonly #deltas = new WeakMap<HaproxyBundle, RenderDelta>();
  readonly #backends = new Map<string, BackendMemo>();
  #layout: Layout | null = null;
  #lastBundle: HaproxyBundle | null = null;
  #frontends: FrontendParts | null = null;
  #last: LastRender | null = null;
  #fixed: readonly string[] | null = null;
  #previous: { list: readonly BackendSlots[]; byName: Map<string, BackendSlots> } | null = null;

  constructor(options: HaproxyRenderOptions) {
    this.#options = options;
  }

  /** The delta of a bundle this renderer derived from its previous one (undefined: compare everything). */
  deltaOf(bundle: HaproxyBundle): RenderDelta | undefined {
    return this.#deltas.get(bundle);
  }

  /**
   * Renders `desired`, placing members into the slots and pools into the backends `observed` shows (null: nothing is
   * known to run). A bridged render that would need a reload anyway is replaced by the tidy one.
   */
  render(
    desired: DesiredState,
    known: HaproxyBundle | readonly BackendSlots[] | null = null,
    mode: RenderMode = {},
  ): HaproxyBundle {
    // A bare slot list (tests, benchmarks) is a bundle of running backends and nothing else.
    const observed = Array.isArray(known) ? { ...emptyBundle, backends: known } : (known as HaproxyBundle | null);
    const tidy = mode.tidy === true || (this.#options.sizing.spareBackends ?? 0) === 0;
    const attempt = this.#attempt(desired, observed, tidy);
    if (attempt.bundle !== null && !attempt.wantsTidy) return attempt.bundle;
    // A tidy attempt always renders (it never stops early).
    return this.#attempt(desired, observed, true).bundle!;
  }

  #attempt(desired: DesiredState, observed: HaproxyBundle | null, tidy: boolean): Attempt {
    const options = this.#options;
    const previous = observed?.backends ?? [];
    // Taken now: a render that throws leaves no last bundle, so the next one records no delta against a stale one.
    const lastBundle = this.#lastBundle;
    this.#lastBundle = null;
    let positional = true;
    const previousOf = this.#previousLookup(previous, () => void (positional = previous.length === 0));
    const layoutBefore = this.#layout;
    const layout = this.#layoutFor(desired, observed, tidy);
    // A pool no spare can take: only the tidy render serves it, so this one is not worth making.
    if (!tidy && layout.placement.needsTidy) return { bundle: null, wantsTidy: true };
    const order = layout.placement.order;
    const last = this.#last;
    // Same layout: start from the last render and visit only positions whose pool or previous slots changed (an
    // endpoint change at 10k backends then touches one backend's objects, not ten thousand).
    const fast = last !== null && last.order === order ? this.#changedPositions(last, desired.pools, previous) : null;
    const backends: BackendSlots[] = fast === null ? new Array<BackendSlots>(order.length) : last!.backends.slice();
    const backendTexts: string[] = fast === null ? new Array<string>(order.length) : last!.texts.slice();
    let spareGrew = false;
    for (const i of fast ?? order.keys()) {
      const before = previousOf(order[i]!.name, i);
      const held = this.#backend(desired, order[i]!, before);
      backends[i] = held.slots;
      backendTexts[i] = held.text;
      if (order[i]!.spare && before !== undefined && held.slots.slots.length !== before.slots.length) spareGrew = true;
    }
    this.#last = {
      order,
      pools: desired.pools,
      previous,
      backends,
      texts: backendTexts,
      positional: positional && (fast === null || last!.positional),
      positionsOfPool:
        fast === null || last === null ? positionsOfPools(order, desired.pools.length) : last.positionsOfPool,
    };
    const frontendsBefore = this.#frontends;
    const { rendered: frontends, files: certificates } = this.#renderFrontends(desired, layout);
    this.#fixed ??= [header(desired.appliance), globalSection(options), defaultsSection()];
    const sections = [...this.#fixed, ...frontends.map((f) => f.text), ...backendTexts];
    // haproxy.cfg travels as its sections: diffs compare them by reference and the apply log stores them as parts.
    const config: BundleFile = { path: CONFIG_FILE, content: new JoinedText(sections, '\n') };
    const files: BundleFile[] = [config, layout.bridgesFile, ...frontends.flatMap((f) => f.files)];
    const maps: MapContent[] = frontends.flatMap((f) => f.maps);
    const bundle: HaproxyBundle = { files: files.sort(byPath), backends, maps: maps.sort(byPath), certificates };
    if (fast !== null && lastBundle !== null && this.#frontends === frontendsBefore)
      this.#deltas.set(bundle, { from: lastBundle, positions: fast.sort((a, b) => a - b) });
    // A delta holds the bundle before it: drop that one's own delta, or every render would keep all earlier ones alive.
    if (lastBundle !== null) this.#deltas.delete(lastBundle);
    this.#lastBundle = bundle;
    if (tidy) return { bundle, wantsTidy: false };
    const placed = layout.placement;
    // A new bridge is worth it only when nothing else in the change needs a reload: then the reload tidies as well.
    const reloadAnyway =
      layout !== layoutBefore &&
      placed.bridges.size > 0 &&
      observed !== null &&
      structuralChanges(bundle, observed).length > 0;
    return { bundle, wantsTidy: spareGrew || reloadAnyway };
  }

  /** One backend, reused when its pool and mode are the same objects and its previous slots are the ones it came from. */
  #backend(desired: DesiredState, placed: PlacedBackend, before: BackendSlots | undefined): BackendMemo {
    const { name, mode } = placed;
    const pool = placed.index < 0 ? null : desired.pools[placed.index]!;
    const held = this.#backends.get(name);
    if (
      held !== undefined &&
      held.pool === pool &&
      held.mode === mode &&
      (held.previous === before || held.slots === before)
    )
      return held;
    const appliance = desired.appliance;
    let memo: BackendMemo;
    if (placed.spare) {
      const sized = before ?? freeSlots(this.#options.sizing.spareSlots ?? DEFAULT_SPARES.spareSlots);
      const slots = { name, slots: assignSlots(pool?.members ?? [], sized, EXACT) };
      memo = { pool, mode, previous: before, slots, text: renderSpare(name, mode, slots.slots, appliance) };
    } else {
      const slots = { name, slots: assignSlots(pool!.members, before, this.#options.sizing) };
      memo = { pool, mode, previous: before, slots, text: renderBackend(name, mode, pool!, slots.slots, appliance) };
    }
    this.#backends.set(name, memo);
    return memo;
  }

  /**
   * Backend positions to re-render when the layout is the last one's: those of pools that are not the very objects
   * the last render had, and those whose previous slots are not. Null (the full loop) unless the previous slots
   * were found by position last time and `previous` has one entry per backend, or both were empty.
   */
  #changedPositions(last: LastRender, pools: readonly Pool[], previous: readonly BackendSlots[]): number[] | null {
    // Unvisited positions must find the same previous slots as last time: by position, or none at all.
    const stable =
      previous.length === 0 ? last.previous.length === 0 : last.positional && previous.length === last.order.length;
    if (!stable || previous.length !== last.previous.length || pools.length !== last.pools.length) return null;
    const out = new Set<number>();
    for (let j = 0; j < pools.length; j++)
      if (pools[j] !== last.pools[j]) for (const i of last.positionsOfPool[j]!) out.add(i);
    if (previous !== last.previous)
      for (let i = 0; i < previous.length; i++) if (previous[i] !== last.previous[i]) out.add(i);
    return [...out];
  }

  /**
   * The previous slots of a backend: by position when both lists are in the same order (the usual case), else by
   * name (`onByName` is told, so a render knows whether its positions can be trusted next time).
   */
  #previousLookup(
    previous: readonly BackendSlots[],
    onByName: () => void,
  ): (name: string, position: number) => BackendSlots | undefined {
    return (name, position) => {
      const at = previous[position];
      if (at?.name === name) return at;
      onByName();
      if (this.#previous?.list !== previous)
        this.#previous = { list: previous, byName: new Map(previous.map((b) => [b.name, b])) };
      return this.#previous.byName.get(name);
    };
  }

  /**
   * Backends in name order with their placement; recomputed only when listeners, pool names or the placement inputs
   * change (an endpoint change reuses the last one, so it costs nothing per backend).
   */
  #layoutFor(desired: DesiredState, observed: HaproxyBundle | null, tidy: boolean): Layout {
    const held = this.#layout;
    const key = placementKey(observed, tidy);
    if (
      held !== null &&
      held.key === key &&
      held.virtualServices === desired.virtualServices &&
      sameNames(held.names, desired.pools)
    )
      return held;
    const modes = backendModes(desired);
    const index = new Map(desired.pools.map((p, i) => [p.name, i]));
    const wanted = [...modes.entries()]
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([name, { pool, mode }]) => ({ name, pool, index: index.get(pool.name)!, mode }));
    const running = runningBackends(observed?.backends ?? [], bridgesText(observed));
    let placement = placeBackends(wanted, running, this.#options.sizing, tidy, spareModes(desired));
    // The same bridges keep the same map object, so the frontends' memo still holds.
    if (held !== null && sameBridges(held.placement.bridges, placement.bridges))
      placement = { ...placement, bridges: held.placement.bridges };
    const bridgesFile =
      held !== null && placement.bridges === held.placement.bridges
        ? held.bridgesFile
        : { path: BRIDGES_FILE, content: renderBridges(placement.bridges) };
    this.#layout = {
      virtualServices: desired.virtualServices,
      names: poolNames(desired.pools),
      key,
      placement,
      bridgesFile,
      modes,
    };
    const names = new Set(placement.order.map((o) => o.name));
    for (const name of this.#backends.keys()) if (!names.has(name)) this.#backends.delete(name);
    return this.#layout;
  }

  /** The frontends and the certificate files they serve; reused while listeners, pool names, placement and certificates hold. */
  #renderFrontends(desired: DesiredState, layout: Layout): FrontendParts {
    const placed = { bridges: layout.placement.bridges, modes: layout.modes };
    this.#frontends = renderFrontends(desired, placed, this.#options, this.#frontends);
    return this.#frontends;
  }
}

/** Slots sized exactly to the count they are given: a spare's slot count is fixed. */
const EXACT = { minFreeSlots: 0, slotIncrement: 1 } as const;

function freeSlots(count: number): BackendSlots {
  return { name: '', slots: Array.from({ length: Math.max(1, count) }, (_, i) => freeSlot(i + 1)) };
}

/** What placement depends on besides the desired state: tidy or not, how many backends run, and `bridges.json`. */
function placementKey(observed: HaproxyBundle | null, tidy: boolean): string {
  return `${tidy ? 'tidy' : 'bridged'}|${observed === null ? -1 : observed.backends.length}|${bridgesText(observed) ?? ''}`;
}

function bridgesText(observed: HaproxyBundle | null): string | null {
  const file = observed?.files.find((f) => f.path === BRIDGES_FILE);
  return file === undefined ? null : String(file.content);
}

function sameBridges(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** For each pool index, the positions of its backends in `order` (a pool has one backend per mode it is used in). */
function positionsOfPools(order: readonly { readonly index: number }[], poolCount: number): number[][] {
  const out: number[][] = Array.from({ length: poolCount }, () => []);
  for (const [i, o] of order.entries()) if (o.index >= 0) out[o.index]!.push(i);
  return out;
}
