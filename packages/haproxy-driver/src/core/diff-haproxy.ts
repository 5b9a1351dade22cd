import type { Operation } from '@portolan/appliance-driver';
import { textOf } from '@portolan/desired-state';
import type { BackendSlots, HaproxyBundle, MapContent } from './haproxy-bundle.ts';
import { diffSlots } from './diff-slots.ts';
import { configSkeleton, isSameStructure } from './config-skeleton.ts';
import { type HaproxyOperation, toOperation } from './haproxy-operations.ts';
import { renderMapFile } from './routing-maps.ts';
import { configSections, type RenderDelta } from './render-parts.ts';
import { CONFIG_FILE } from './fixed-sections.ts';
import { BRIDGES_FILE } from './spare-backends.ts';
import { type CrtListEdit, crtListEdit, lineCertificate } from './crt-list-edit.ts';
import { mapEdit } from './map-edit.ts';

/** At most this many reasons are named in a reload's summary (the rest are counted). */
const MAX_REASONS = 6;

/**
 * Operations turning the observed HAProxy into the desired one.
 *
 * Anything the Runtime API cannot change (listeners, backends, slot counts, checks, a map HAProxy has not loaded,
 * another default certificate) makes the answer exactly one `reload` carrying the whole bundle. Otherwise the answer
 * is runtime operations only — slots first, then certificates (new ones created), then crt-list lines, then maps (so
 * a route never points at an empty backend), then file rewrites so a later reload starts from the same state.
 * Equal bundles give no operations.
 */
export function diffHaproxy(
  desired: HaproxyBundle,
  observed: HaproxyBundle,
  options: { readonly delta?: RenderDelta | undefined } = {},
): Operation[] {
  // Desired rendered from exactly the observed bundle (the hot path after a successful apply): only the backend
  // positions the renderer revisited can differ, so only those are compared (10k backends: one, not ten thousand).
  // The delta is the renderer's account of what it revisited; without one everything is compared.
  const delta = options.delta;
  const positions = delta !== undefined && delta.from === observed ? delta.positions : null;
  const reasons = structuralChanges(desired, observed, positions);
  if (reasons.length > 0) {
    const named = reasons.slice(0, MAX_REASONS);
    if (reasons.length > MAX_REASONS) named.push(`${reasons.length - MAX_REASONS} more`);
    return [
      toOperation({
        kind: 'reload',
        reasons: named,
        files: desired.files,
        certificates: desired.certificates,
        backends: desired.backends,
      }),
    ];
  }
  const ops: HaproxyOperation[] = [
    ...diffSlots(desired.backends, observed.backends, false, positions ?? undefined).map((c): HaproxyOperation => ({
      kind: 'server',
      ...c,
    })),
    ...certificateChanges(desired, observed),
    ...crtListChanges(desired, observed),
    ...mapChanges(desired, observed),
    ...certificateDrops(desired, observed),
  ];
  // Which pools sit in which spares: rewritten after the maps that made it so (a read-back renders the same placement).
  const bridges = desired.files.find((f) => f.path === BRIDGES_FILE);
  if (bridges !== undefined && fileContent(observed, BRIDGES_FILE) !== textOf(bridges.content))
    ops.push({ kind: 'file', file: bridges });
  // Same structure: the files can differ only in server lines, which are patched in place (no full rewrite).
  const stale = backendsWithOtherServerLines(desired, observed, positions);
  if (stale.length > 0) {
    ops.push({ kind: 'config-slots', backends: stale });
  }
  return ops.map(toOperation);
}

/** Backends whose server lines differ between the two configs (whose structures are known to be equal). */
function backendsWithOtherServerLines(
  desired: HaproxyBundle,
  observed: HaproxyBundle,
  positions: readonly number[] | null,
): BackendSlots[] {
  const want = configSections(desired);
  const have = configSections(observed);
  if (want !== undefined && have !== undefined && want.length === have.length) {
    // Backend sections are the last ones, in the order of `backends`.
    const first = want.length - desired.backends.length;
    const out: BackendSlots[] = [];
    if (positions !== null) {
      for (const p of positions) if (want[first + p] !== have[first + p]) out.push(desired.backends[p]!);
      return out;
    }
    for (let i = first; i < want.length; i++) if (want[i] !== have[i]) out.push(desired.backends[i - first]!);
    return out;
  }
  const names = new Set<string>();
  const a = fileContent(desired, CONFIG_FILE);
  const b = fileContent(observed, CONFIG_FILE);
  if (a === null || a === b) return [];
  const left = a.split('\n');
  const right = (b ?? '').split('\n');
  let current = '';
  for (let i = 0; i < left.length; i++) {
    const line = left[i]!;
    if (line.startsWith('backend ')) current = line.slice(8);
    if (line !== right[i] && current !== '') names.add(current);
  }
  return desired.backends.filter((backend) => names.has(backend.name));
}

/** Why the desired bundle cannot be reached through the Runtime API; empty when it can. */
export function structuralChanges(
  desired: HaproxyBundle,
  observed: HaproxyBundle,
  positions: readonly number[] | null = null,
): string[] {
  const reasons: string[] = [];
  if (!sameSectionStructure(desired, observed, positions)) {
    const desiredConfig = fileContent(desired, CONFIG_FILE) ?? '';
    const observedConfig = fileContent(observed, CONFIG_FILE);
    if (observedConfig === null) reasons.push('no configuration on disk');
    else if (!isSameStructure(desiredConfig, observedConfig))
      reasons.push(...sectionChanges(desiredConfig, observedConfig));
  }
  const edits = crtListEdits(desired, observed);
  for (const [path, edit] of edits) if (edit === null) reasons.push(`crt-list ${path} changed`);
  // The files say what the next reload would load; the process may still run something else.
  return reasons.length > 0 ? reasons : runtimeMismatches(desired, observed, positions, addedCertificates(edits));
}

/** The crt-lists whose content differs, each with its runtime edit (null: only a reload can make it). */
function crtListEdits(desired: HaproxyBundle, observed: HaproxyBundle): Map<string, CrtListEdit | null> {
  const out = new Map<string, CrtListEdit | null>();
  for (const file of desired.files) {
    if (!file.path.startsWith('crt-lists/')) continue;
    const have = fileContent(observed, file.path);
    const want = textOf(file.content);
    if (have !== want) out.set(file.path, crtListEdit(have, want));
  }
  return out;
}

/** Certificate paths (as crt-list lines name them) that runtime crt-list edits add. */
function addedCertificates(edits: ReadonlyMap<string, CrtListEdit | null>): string[] {
  return [...edits.values()].flatMap((e) => (e === null ? [] : e.add.map(lineCertificate)));
}

/** True when both bundles come from a renderer and their sections differ only in server lines (false: unknown). */
function sameSectionStructure(
  desired: HaproxyBundle,
  observed: HaproxyBundle,
  positions: readonly number[] | null,
): boolean {
  const want = configSections(desired);
  const have = configSections(observed);
  if (want === undefined || have === undefined || want.length !== have.length) return false;
  const same = (i: number): boolean => want[i] === have[i] || isSameStructure(want[i]!, have[i]!);
  if (positions !== null) {
    const first = want.length - desired.backends.length;
    return positions.every((p) => same(first + p));
  }
  for (let i = 0; i < want.length; i++) if (!same(i)) return false;
  return true;
}

/** Structure the running process lacks although the files on disk already describe it. */
function runtimeMismatches(
  desired: HaproxyBundle,
  observed: HaproxyBundle,
  positions: readonly number[] | null,
  /** Certificates a runtime crt-list edit adds: created through the Runtime API, no reload needed. */
  added: readonly string[],
): string[] {
  const reasons: string[] = [];
  if (!sameBackendShapes(desired.backends, observed.backends, positions))
    reasons.push(...backendMismatches(desired, observed));
  const loadedMaps = new Set(observed.maps.map((m) => m.path));
  for (const map of desired.maps) if (!loadedMaps.has(map.path)) reasons.push(`map ${map.path} not loaded`);
  const loadedCerts = new Set(observed.certificates.map((c) => c.path));
  for (const cert of desired.certificates) {
    if (!loadedCerts.has(cert.path) && !added.some((a) => a.endsWith(`/${cert.path}`)))
      reasons.push(`certificate ${cert.path} not loaded`);
  }
  return reasons;
}

/** Same backends in the same order with the same slot counts (checked by position; objects shared are skipped). */
function sameBackendShapes(
  desired: readonly BackendSlots[],
  observed: readonly BackendSlots[],
  positions: readonly number[] | null,
): boolean {
  if (desired.length !== observed.length) return false;
  const same = (i: number): boolean => {
    const d = desired[i]!;
    const o = observed[i]!;
    return d === o || (d.name === o.name && d.slots.length === o.slots.length);
  };
  if (positions !== null) return positions.every(same);
  for (let i = 0; i < desired.length; i++) if (!same(i)) return false;
  return true;
}

function backendMismatches(desired: HaproxyBundle, observed: HaproxyBundle): string[] {
  const reasons: string[] = [];
  const running = new Map(observed.backends.map((b) => [b.name, b]));
  for (const backend of desired.backends) {
    const current = running.get(backend.name);
    if (current === undefined) reasons.push(`backend ${backend.name} not running`);
    else if (current.slots.length !== backend.slots.length) {
      reasons.push(`backend ${backend.name} runs ${current.slots.length} slots, not ${backend.slots.length}`);
    }
  }
  const wanted = new Set(desired.backends.map((b) => b.name));
  for (const backend of observed.backends) {
    if (!wanted.has(backend.name)) reasons.push(`backend ${backend.name} still running`);
  }
  return reasons;
}

/** Certificates whose material changed, and new ones (created first: a crt-list line added next names them). */
function certificateChanges(desired: HaproxyBundle, observed: HaproxyBundle): HaproxyOperation[] {
  const loaded = new Map(observed.certificates.map((c) => [c.path, c]));
  return desired.certificates
    .filter((c) => loaded.get(c.path)?.fingerprint !== c.fingerprint)
    .map((certificate) =>
      loaded.has(certificate.path)
        ? { kind: 'ssl-cert', certificate }
        : { kind: 'ssl-cert', certificate, create: true },
    );
}

/**
 * Certificates HAProxy holds that no crt-list will name (a TLS host gone, a Secret the appliance refused): dropped
 * after the crt-list edits that stopped naming them.
 */
function certificateDrops(desired: HaproxyBundle, observed: HaproxyBundle): HaproxyOperation[] {
  const wanted = new Set(desired.certificates.map((c) => c.path));
  return observed.certificates
    .filter((c) => !wanted.has(c.path))
    .map((c): HaproxyOperation => ({ kind: 'ssl-cert-del', path: c.path }));
}

/** Crt-list lines removed and added at runtime (`structuralChanges` has made sure every edit is possible). */
function crtListChanges(desired: HaproxyBundle, observed: HaproxyBundle): HaproxyOperation[] {
  const ops: HaproxyOperation[] = [];
  for (const [path, edit] of crtListEdits(desired, observed)) {
    const content = fileContent(desired, path);
    if (edit !== null && content !== null) ops.push({ kind: 'crt-list', path, ...edit, content });
  }
  return ops;
}

function mapChanges(desired: HaproxyBundle, observed: HaproxyBundle): HaproxyOperation[] {
  const loaded = new Map(observed.maps.map((m) => [m.path, m]));
  return desired.maps
    .filter(
      (m) =>
        !sameEntries(m, loaded.get(m.path)) ||
        fileContent(observed, m.path) !== (fileContent(desired, m.path) ?? renderMapFile(m.entries)),
    )
    .map((m) => {
      const held = loaded.get(m.path);
      const edit = held === undefined ? null : mapEdit(held.entries, m.entries);
      return edit === null
        ? { kind: 'map', path: m.path, entries: m.entries }
        : { kind: 'map', path: m.path, entries: m.entries, edit };
    });
}

function sameEntries(a: MapContent, b: MapContent | undefined): boolean {
  if (a === b) return true;
  if (b === undefined || a.entries.length !== b.entries.length) return false;
  return a.entries.every(([k, v], i) => b.entries[i]?.[0] === k && b.entries[i]?.[1] === v);
}

function fileContent(bundle: HaproxyBundle, path: string): string | null {
  const content = bundle.files.find((f) => f.path === path)?.content;
  return content === undefined ? null : textOf(content);
}

/** Names the sections (frontends, backends, global, defaults) whose structure differs. */
function sectionChanges(desired: string, observed: string): string[] {
  const want = sections(configSkeleton(desired));
  const have = sections(configSkeleton(observed));
  const reasons: string[] = [];
  for (const [name, body] of want) {
    const current = have.get(name);
    if (current === undefined) reasons.push(`${name} added`);
    else if (current !== body) reasons.push(`${name} changed`);
  }
  for (const name of have.keys()) if (!want.has(name)) reasons.push(`${name} removed`);
  return reasons.length > 0 ? reasons : ['configuration changed'];
}

function sections(config: string): Map<string, string> {
  const out = new Map<string, string>();
  let current = '';
  for (const line of config.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    if (!/^\s/.test(line)) current = line.trim();
    out.set(current, `${out.get(current) ?? ''}${line}\n`);
  }
  return out;
}
