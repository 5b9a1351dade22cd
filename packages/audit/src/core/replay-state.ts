import { canonicalJson, type DriverKind } from '@portolan/desired-state';
import { listVendorObjects } from './vendor-objects.ts';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * The read-back of a past apply turned into a state a driver can push: read-backs cannot know which Secret a
 * certificate came from, so certificate objects get the Secret reference of the same-named object in the
 * snapshot's render (vTM SSL server keys, LoadMaster certificates; HAProxy certificate files). Pure.
 */
export function replayableState(kind: DriverKind, observed: unknown, rendered: unknown): unknown {
  if (kind === 'vtm') {
    const secrets = new Map(
      arr(obj(rendered)['objects'])
        .map(obj)
        .filter((o) => o['type'] === 'ssl/server_keys')
        .map((o) => [o['name'], o['secret']]),
    );
    const objects = arr(obj(observed)['objects']).map((raw) => {
      const o = obj(raw);
      return o['type'] === 'ssl/server_keys' && secrets.has(o['name']) ? { ...o, secret: secrets.get(o['name']) } : raw;
    });
    return { objects, conditions: [] };
  }
  if (kind === 'loadmaster') {
    const secrets = new Map(
      arr(obj(rendered)['certificates'])
        .map(obj)
        .map((c) => [c['name'], c['secret']]),
    );
    const o = obj(observed);
    return {
      ...o,
      certificates: arr(o['certificates']).map((c) => ({ ...obj(c), secret: secrets.get(obj(c)['name']) ?? null })),
      bindings: [],
      targets: [],
      skipped: [],
    };
  }
  const secrets = new Map(
    arr(obj(rendered)['certificates'])
      .map(obj)
      .map((c) => [c['path'], c['secret']]),
  );
  const o = obj(observed);
  return {
    ...o,
    certificates: arr(o['certificates']).map((c) => ({
      ...obj(c),
      secret: secrets.get(obj(c)['path']) ?? obj(c)['secret'],
    })),
  };
}

/**
 * A vendor state reduced to what must be equal for two appliances to hold the same configuration: appliance
 * indexes (LoadMaster), foreign objects and Secret references (which read-backs do not have) are dropped.
 * HAProxy files must already name the same directory (see relocateHaproxyFiles).
 */
export function comparableState(kind: DriverKind, vendor: unknown): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v === null || typeof v !== 'object') return v;
    const out: Json = {};
    for (const [k, x] of Object.entries(v as Json))
      if (
        ![
          'index',
          'rsIndex',
          'secret',
          'foreign',
          'externalTrafficIps',
          'targets',
          'conditions',
          'skipped',
          'bindings',
        ].includes(k)
      )
        out[k] = strip(x);
    return out;
  };
  return kind === 'haproxy'
    ? canonicalJson(
        strip({
          ...obj(vendor),
          certificates: arr(obj(vendor)['certificates']).map((c) => ({
            path: obj(c)['path'],
            fingerprint: obj(c)['fingerprint'],
          })),
        }),
      )
    : canonicalJson(strip(vendor));
}

/** Rewrites the HAProxy config directory named inside file contents (haproxy.cfg holds absolute paths). */
export function relocateHaproxyFiles(observed: unknown, fromDir: string, toDir: string): unknown {
  const o = obj(observed);
  const from = fromDir.replace(/\/+$/, '');
  const to = toDir.replace(/\/+$/, '');
  return {
    ...o,
    files: arr(o['files']).map((f) => ({
      ...obj(f),
      content: String(obj(f)['content'] ?? '')
        .split(`${from}/`)
        .join(`${to}/`),
    })),
  };
}

/** Ids of vendor objects that differ between two states (missing, extra or different), for the replay report. */
export function differingObjects(kind: DriverKind, a: unknown, b: unknown): string[] {
  const index = (v: unknown): Map<string, string> =>
    new Map(
      listVendorObjects(kind, JSON.parse(comparableState(kind, v)) as unknown).map((o) => [
        o.id,
        canonicalJson(o.value),
      ]),
    );
  const left = index(a);
  const right = index(b);
  const ids = [...new Set([...left.keys(), ...right.keys()])].sort();
  return ids.filter((id) => left.get(id) !== right.get(id));
}
