import path from 'node:path';
import type { BackendSlots, CertificateFile, HaproxyBundle, MapContent } from './core/haproxy-bundle.ts';
import { parseServersStateRows, serversStateBackends, type ServersStateRows } from './core/parse-servers-state.ts';
import { parseMapEntries, parseMapList } from './core/parse-show-map.ts';
import type { HaproxyRuntimeClient } from './adapters/haproxy-runtime-client.ts';
import { readBundleFiles, readCertificateIndex } from './adapters/haproxy-config-files.ts';

/**
 * Reads back what Portolan owns on one HAProxy: the files on disk (what the next reload would load) and the
 * running worker's view through the Runtime API (slots, loaded maps and their entries, loaded certificates).
 * Only maps and certificates under the config directory count; anything else is not ours.
 */
export async function readBackHaproxy(configDir: string, runtime: HaproxyRuntimeClient): Promise<HaproxyBundle> {
  const [files, [serversState = '', mapList = '', certList = ''], index] = await Promise.all([
    readBundleFiles(configDir),
    runtime.execute(['show servers state', 'show map', 'show ssl cert']),
    readCertificateIndex(configDir),
  ]);
  // 10k backends answer with ~160k rows: parse them in slices so the caller's other work (an apply) is not held up.
  const rows: ServersStateRows = new Map();
  for (let at = 0; at < serversState.length;) {
    at = parseServersStateRows(serversState, at, 10_000, rows);
    if (at < serversState.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const backends: BackendSlots[] = serversStateBackends(rows);

  const loadedMaps = new Map<string, string>();
  for (const map of parseMapList(mapList)) {
    const rel = ownedPath(configDir, map.file);
    if (rel !== null) loadedMaps.set(rel, map.file);
  }
  const mapPaths = [...loadedMaps.keys()].sort();
  const mapReplies = await runtime.execute(mapPaths.map((rel) => `show map ${loadedMaps.get(rel) ?? ''}`));
  const maps: MapContent[] = mapPaths.map((rel, i) => ({ path: rel, entries: parseMapEntries(mapReplies[i] ?? '') }));

  const certificates: CertificateFile[] = [];
  for (const line of certList.split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('*')) continue;
    const rel = ownedPath(configDir, line.trim());
    if (rel === null) continue;
    certificates.push({ path: rel, fingerprint: index.get(rel) ?? '', secret: unknownSecret });
  }
  certificates.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, backends, maps, certificates };
}

/** The running process cannot tell which Secret a PEM came from; the diff compares fingerprints only. */
const unknownSecret = { cluster: '', kind: 'Secret', namespace: '', name: '' } as const;

function ownedPath(configDir: string, file: string): string | null {
  const rel = path.relative(configDir, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}
