import {
  JoinedText,
  type Certificate,
  type DesiredState,
  type Pool,
  type VirtualService,
} from '@portolan/desired-state';
import type { BackendSlots, BundleFile, CertificateFile, HaproxyBundle, MapContent } from './haproxy-bundle.ts';
import { type BackendMode, backendName, fileStem, frontendName } from './haproxy-names.ts';
import { assignSlots, type SlotSizing } from './assign-slots.ts';
import { renderBackend } from './render-backend.ts';
import { type FrontendContext, type RenderedFrontend, renderFrontend } from './render-frontend.ts';
import { absolutePath } from './config-text.ts';
import { CONFIG_FILE, defaultsSection, globalSection, header } from './fixed-sections.ts';

/** Settings that shape the rendered config besides the desired state itself. */
export interface HaproxyRenderOptions {
  /** Absolute directory holding haproxy.cfg, maps, crt-lists, certificates, sockets and the state file. */
  readonly configDir: string;
  /** Listen address for services whose address is the appliance default. */
  readonly defaultAddress: string;
  readonly sizing: SlotSizing;
  /** `Server` response header value. */
  readonly serverHeader: string;
  /** Bound on how long old workers may keep serving open connections after a reload. */
  readonly hardStopAfter: string;
}

/** Defaults for the options not found in the fleet config. */
export const defaultRenderTuning = { serverHeader: 'portolan', hardStopAfter: '5m' } as const;

export { CONFIG_FILE, RUNTIME_SOCKET, SERVER_STATE_FILE } from './fixed-sections.ts';

/**
 * Renders a desired state into the complete bundle HAProxy should run: haproxy.cfg, maps, crt-lists,
 * backend slots and certificate references. Pure and deterministic: the same (desired, options, previous)
 * gives the same bytes. `previous` is the slot assignment last read back, so members keep their slots.
 */
export function renderHaproxyBundle(
  desired: DesiredState,
  options: HaproxyRenderOptions,
  previous: readonly BackendSlots[] = [],
): HaproxyBundle {
  return new HaproxyRenderer(options).render(desired, previous);
}

/** The config sections a bundle's haproxy.cfg is joined from (header first), or undefined for a read-back bundle. */
export function configSections(bundle: HaproxyBundle): readonly string[] | undefined {
  const content = bundle.files.find((f) => f.path === CONFIG_FILE)?.content;
  return content instanceof JoinedText && content.separator === '\n' ? content.parts : undefined;
}

/** What a render by the positional shortcut changed relative to the render before it. */
export interface RenderDelta {
  /** The bundle this one was derived from. */
  readonly from: HaproxyBundle;
  /**
   * The only backend positions (ascending; in `backends`, and among the last config sections) whose objects may differ;
   * every other backend, section, frontend, map, certificate and file is the very same object or text.
   */
  readonly positions: readonly number[];
}

/** What the last render had and made, by backend position. */
interface LastRender {
  readonly order: readonly unknown[];
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
  readonly pool: Pool;
  readonly mode: BackendMode;
  readonly previous: BackendSlots | undefined;
  readonly slots: BackendSlots;
  readonly text: string;
}

/**
 * `renderHaproxyBundle` with memory: a render reuses every backend whose pool object, mode and previous slots are
 * the ones it rendered last time, and every frontend when listeners, pool names and certificates are unchanged, so
 * an endpoint change in a 10k-backend world re-renders one backend. The output is identical to a fresh render
 * (a test checks it); unchanged parts keep their object identity, which lets `diffHaproxy` skip them.
 *
 * Its fields are a memo of its own earlier renders, not of the appliance: they change how fast a render is, never
 * what it returns (what the appliance holds comes in as `previous`).
 */
export class HaproxyRenderer {
  readonly #options: HaproxyRenderOptions;
  /** Each bundle this renderer made by the positional shortcut, with what it changed (see `deltaOf`). */
  readonly #deltas = new WeakMap<HaproxyBundle, RenderDelta>();
  readonly #backends = new Map<string, BackendMemo>();
  #layout: {
    virtualServices: readonly VirtualService[];
    names: PoolNames;
    order: readonly { name: string; index: number; mode: BackendMode }[];
  } | null = null;
  #lastBundle: HaproxyBundle | null = null;
  #frontends: {
    virtualServices: readonly VirtualService[];
    names: PoolNames;
    certificates: readonly Certificate[];
    rendered: readonly RenderedFrontend[];
    files: readonly CertificateFile[];
  } | null = null;
  /** The last render's inputs and outputs by position, for the positional fast path (see `#changedPositions`). */
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

  /** Renders `desired`, placing members into the slots `previous` shows (see `renderHaproxyBundle`). */
  render(desired: DesiredState, previous: readonly BackendSlots[] = []): HaproxyBundle {
    const options = this.#options;
    // Taken now: a render that throws leaves no last bundle, so the next one records no delta against a stale one.
    const lastBundle = this.#lastBundle;
    this.#lastBundle = null;
    let positional = true;
    const previousOf = this.#previousLookup(previous, () => void (positional = previous.length === 0));
    const order = this.#backendOrder(desired);
    const last = this.#last;
    // Same layout: start from the last render and visit only positions whose pool or previous slots changed (an
    // endpoint change at 10k backends then touches one backend's objects, not ten thousand).
    const fast = last !== null && last.order === order ? this.#changedPositions(last, desired.pools, previous) : null;
    const backends: BackendSlots[] = fast === null ? new Array<BackendSlots>(order.length) : last!.backends.slice();
    const backendTexts: string[] = fast === null ? new Array<string>(order.length) : last!.texts.slice();
    const visit = fast ?? order.keys();
    for (const i of visit) {
      const { name, index, mode } = order[i]!;
      const held = this.#backend(desired, name, desired.pools[index]!, mode, previousOf(name, i));
      backends[i] = held.slots;
      backendTexts[i] = held.text;
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
    const { rendered: frontends, files: certificates } = this.#renderFrontends(desired);
    this.#fixed ??= [header(desired.appliance), globalSection(options), defaultsSection()];
    const sections = [...this.#fixed, ...frontends.map((f) => f.text), ...backendTexts];
    // haproxy.cfg travels as its sections: diffs compare them by reference and the apply log stores them as parts.
    const config: BundleFile = { path: CONFIG_FILE, content: new JoinedText(sections, '\n') };
    const files: BundleFile[] = [config, ...frontends.flatMap((f) => f.files)];
    const maps: MapContent[] = frontends.flatMap((f) => f.maps);
    const bundle: HaproxyBundle = {
      files: files.sort(byPath),
      backends,
      maps: maps.sort(byPath),
      certificates: [...certificates],
    };
    if (fast !== null && lastBundle !== null && this.#frontends === frontendsBefore)
      this.#deltas.set(bundle, { from: lastBundle, positions: fast.sort((a, b) => a - b) });
    // A delta holds the bundle before it: drop that one's own delta, or every render would keep all earlier ones alive.
    if (lastBundle !== null) this.#deltas.delete(lastBundle);
    this.#lastBundle = bundle;
    return bundle;
  }

  /**
   * One backend, reused when its pool and mode are the same objects and its previous slots are what it was rendered
   * from, or what it rendered (placing the same members into the slots they hold is a fixed point).
   */
  #backend(
    desired: DesiredState,
    name: string,
    pool: Pool,
    mode: BackendMode,
    before: BackendSlots | undefined,
  ): BackendMemo {
    const held = this.#backends.get(name);
    if (
      held !== undefined &&
      held.pool === pool &&
      held.mode === mode &&
      (held.previous === before || held.slots === before)
    )
      return held;
    const slots = { name, slots: assignSlots(pool.members, before, this.#options.sizing) };
    const memo = {
      pool,
      mode,
      previous: before,
      slots,
      text: renderBackend(name, mode, pool, slots.slots, desired.appliance),
    };
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

  /** Backends in name order, as (backend name, pool index, mode); recomputed only when listeners or pool names change. */
  #backendOrder(desired: DesiredState): readonly { name: string; index: number; mode: BackendMode }[] {
    const held = this.#layout;
    if (held !== null && held.virtualServices === desired.virtualServices && sameNames(held.names, desired.pools))
      return held.order;
    const modes = backendModes(desired);
    const index = new Map(desired.pools.map((p, i) => [p.name, i]));
    const order = [...modes.entries()]
      .sort(byKey)
      .map(([name, { pool, mode }]) => ({ name, index: index.get(pool.name)!, mode }));
    this.#layout = { virtualServices: desired.virtualServices, names: poolNames(desired.pools), order };
    const names = new Set(order.map((o) => o.name));
    for (const name of this.#backends.keys()) if (!names.has(name)) this.#backends.delete(name);
    return order;
  }

  /** The frontends and the certificate files they serve; reused while listeners, pool names and certificates hold. */
  #renderFrontends(desired: DesiredState): {
    readonly rendered: readonly RenderedFrontend[];
    readonly files: readonly CertificateFile[];
  } {
    const held = this.#frontends;
    if (
      held !== null &&
      held.virtualServices === desired.virtualServices &&
      held.certificates === desired.certificates &&
      sameNames(held.names, desired.pools)
    )
      return held;
    const options = this.#options;
    const pools = new Set(desired.pools.map((p) => p.name));
    const modes = backendModes(desired);
    const certByName = new Map(desired.certificates.map((c) => [c.name, c]));
    const ctx: FrontendContext = {
      appliance: desired.appliance,
      configDir: options.configDir,
      defaultAddress: options.defaultAddress,
      serverHeader: options.serverHeader,
      backendOf: (pool, mode) =>
        pools.has(pool) && modes.has(backendName(pool, mode)) ? backendName(pool, mode) : null,
      crtListLine: (name) => {
        const cert = certByName.get(name);
        // An ACME certificate has no fingerprint until it is issued: nothing to serve yet.
        if (cert === undefined || cert.fingerprint === '') return null;
        return [absolutePath(options.configDir, certificatePath(cert.name)), ...cert.hosts].join(' ');
      },
    };
    const rendered = [...desired.virtualServices]
      .sort((a, b) => (frontendName(a.name) < frontendName(b.name) ? -1 : 1))
      .map((vs) => renderFrontend(vs, ctx))
      .filter((f): f is RenderedFrontend => f !== null);
    const files = certificateFiles(desired.certificates).filter((c) => usedBy(c, desired));
    this.#frontends = {
      virtualServices: desired.virtualServices,
      certificates: desired.certificates,
      names: poolNames(desired.pools),
      rendered,
      files,
    };
    return this.#frontends;
  }
}

/** Pool names by position, and the pools array they were read from (its unchanged pools need no second look). */
interface PoolNames {
  readonly names: readonly string[];
  pools: readonly Pool[];
}

function poolNames(pools: readonly Pool[]): PoolNames {
  return { names: pools.map((p) => p.name), pools };
}

/** Whether `pools` has the held names by position; a pool that is the very object seen last time is not read again. */
function sameNames(held: PoolNames, pools: readonly Pool[]): boolean {
  const { names } = held;
  if (held.pools === pools) return true;
  if (names.length !== pools.length) return false;
  for (let i = 0; i < names.length; i++) if (pools[i] !== held.pools[i] && names[i] !== pools[i]!.name) return false;
  held.pools = pools;
  return true;
}

/** For each pool index, the positions of its backends in `order` (a pool has one backend per mode it is used in). */
function positionsOfPools(order: readonly { readonly index: number }[], poolCount: number): number[][] {
  const out: number[][] = Array.from({ length: poolCount }, () => []);
  for (const [i, o] of order.entries()) out[o.index]!.push(i);
  return out;
}

/** Where a certificate's PEM lives, relative to the config directory. */
export function certificatePath(name: string): string {
  return `certs/${fileStem(name)}.pem`;
}

/** Which backends exist: a pool behind an HTTP(S) listener (or behind none) runs in http mode, behind passthrough in tcp. */
function backendModes(desired: DesiredState): Map<string, { pool: Pool; mode: BackendMode }> {
  const used = new Map<string, Set<BackendMode>>();
  for (const vs of desired.virtualServices) {
    const mode: BackendMode = vs.protocol === 'tls-passthrough' ? 'tcp' : 'http';
    for (const pool of [...vs.routes.map((r) => r.pool), ...(vs.defaultPool === null ? [] : [vs.defaultPool])]) {
      const modes = used.get(pool) ?? new Set<BackendMode>();
      modes.add(mode);
      used.set(pool, modes);
    }
  }
  const out = new Map<string, { pool: Pool; mode: BackendMode }>();
  for (const pool of desired.pools) {
    for (const mode of used.get(pool.name) ?? new Set<BackendMode>(['http'])) {
      out.set(backendName(pool.name, mode), { pool, mode });
    }
  }
  return out;
}

function certificateFiles(certs: readonly Certificate[]): CertificateFile[] {
  const files = new Map<string, CertificateFile>();
  for (const cert of certs) {
    if (cert.fingerprint === '') continue;
    const path = certificatePath(cert.name);
    if (!files.has(path)) files.set(path, { path, secret: cert.secret, fingerprint: cert.fingerprint });
  }
  return [...files.values()].sort(byPath);
}

function usedBy(cert: CertificateFile, desired: DesiredState): boolean {
  return desired.virtualServices.some(
    (vs) =>
      vs.protocol === 'https' &&
      vs.redirectToHttpsPort === null &&
      vs.certificates.some((n) => certificatePath(n) === cert.path),
  );
}

function byKey<T>(a: readonly [string, T], b: readonly [string, T]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
