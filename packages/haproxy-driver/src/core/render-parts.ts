import { JoinedText, type Certificate, type DesiredState, type Pool } from '@portolan/desired-state';
import type { CertificateFile, HaproxyBundle } from './haproxy-bundle.ts';
import { type BackendMode, backendName, fileStem } from './haproxy-names.ts';
import type { SlotSizing } from './assign-slots.ts';
import type { SpareSizing } from './spare-backends.ts';
import { CONFIG_FILE } from './fixed-sections.ts';

/** Settings that shape the rendered config besides the desired state itself. */
export interface HaproxyRenderOptions {
  /** Absolute directory holding haproxy.cfg, maps, crt-lists, certificates, sockets and the state file. */
  readonly configDir: string;
  /** Listen address for services whose address is the appliance default. */
  readonly defaultAddress: string;
  /** Server slots per backend, and the spare backends new pools are bridged into (none unless set). */
  readonly sizing: SlotSizing & SpareSizing;
  /** `Server` response header value. */
  readonly serverHeader: string;
  /** Bound on how long old workers may keep serving open connections after a reload. */
  readonly hardStopAfter: string;
}

/** Defaults for the options not found in the fleet config. */
export const defaultRenderTuning = { serverHeader: 'portolan', hardStopAfter: '5m' } as const;

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

/** The config sections a bundle's haproxy.cfg is joined from (header first), or undefined for a read-back bundle. */
export function configSections(bundle: HaproxyBundle): readonly string[] | undefined {
  const content = bundle.files.find((f) => f.path === CONFIG_FILE)?.content;
  return content instanceof JoinedText && content.separator === '\n' ? content.parts : undefined;
}

/** Where a certificate's PEM lives, relative to the config directory. */
export function certificatePath(name: string): string {
  return `certs/${fileStem(name)}.pem`;
}

/** Which backends exist: a pool behind an HTTP(S) listener (or behind none) runs in http mode, behind passthrough in tcp. */
export function backendModes(desired: DesiredState): Map<string, { pool: Pool; mode: BackendMode }> {
  // Bit 1: used in http mode, bit 2: in tcp mode (one pass, no per-route allocation: it runs on every layout at 10k).
  const used = new Map<string, number>();
  for (const vs of desired.virtualServices) {
    const bit = vs.protocol === 'tls-passthrough' ? 2 : 1;
    for (const route of vs.routes) used.set(route.pool, (used.get(route.pool) ?? 0) | bit);
    if (vs.defaultPool !== null) used.set(vs.defaultPool, (used.get(vs.defaultPool) ?? 0) | bit);
  }
  const out = new Map<string, { pool: Pool; mode: BackendMode }>();
  for (const pool of desired.pools) {
    const bits = used.get(pool.name) ?? 1;
    if ((bits & 1) !== 0) out.set(poolBackendName(pool, 'http'), { pool, mode: 'http' });
    if ((bits & 2) !== 0) out.set(poolBackendName(pool, 'tcp'), { pool, mode: 'tcp' });
  }
  return out;
}

/** Backend names by pool object: a pool that did not change keeps its object, and its name is not made again. */
const NAMES = { http: new WeakMap<Pool, string>(), tcp: new WeakMap<Pool, string>() };

function poolBackendName(pool: Pool, mode: BackendMode): string {
  let name = NAMES[mode].get(pool);
  if (name === undefined) NAMES[mode].set(pool, (name = backendName(pool.name, mode)));
  return name;
}

/** The modes spare backends are kept for: http always, tcp when a TLS passthrough listener exists. */
export function spareModes(desired: DesiredState): ReadonlySet<BackendMode> {
  return desired.virtualServices.some((vs) => vs.protocol === 'tls-passthrough') ? BOTH_MODES : HTTP_ONLY;
}

const HTTP_ONLY: ReadonlySet<BackendMode> = new Set(['http']);
const BOTH_MODES: ReadonlySet<BackendMode> = new Set(['http', 'tcp']);

/** The certificate files the listeners serve, by path. */
export function servedCertificateFiles(desired: DesiredState): CertificateFile[] {
  return certificateFiles(desired.certificates).filter((c) => usedBy(c, desired));
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

export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** Pool names by position, and the pools array they were read from (its unchanged pools need no second look). */
export interface PoolNames {
  readonly names: readonly string[];
  pools: readonly Pool[];
}

export function poolNames(pools: readonly Pool[]): PoolNames {
  return { names: pools.map((p) => p.name), pools };
}

/** Whether `pools` has the held names by position; a pool that is the very object seen last time is not read again. */
export function sameNames(held: PoolNames, pools: readonly Pool[]): boolean {
  const { names } = held;
  if (held.pools === pools) return true;
  if (names.length !== pools.length) return false;
  for (let i = 0; i < names.length; i++) if (pools[i] !== held.pools[i] && names[i] !== pools[i]!.name) return false;
  held.pools = pools;
  return true;
}
