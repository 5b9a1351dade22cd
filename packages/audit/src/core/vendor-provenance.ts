import type { DesiredState, DriverKind } from '@portolan/desired-state';
import { backendName, certificatePath, frontendName } from '@portolan/haproxy-driver';
import { certificateName, ownerMark } from '@portolan/loadmaster-driver';
import { vtmName } from '@portolan/vtm-driver';

/** A neutral (appliance-independent) object of a desired state that a vendor object is rendered from. */
export interface NeutralRef {
  readonly type: 'virtual-service' | 'pool' | 'certificate' | 'route' | 'binding';
  readonly name: string;
  /** Routes only: the virtual service and the route's host, path and match. */
  readonly route?: { readonly vs: string; readonly host: string; readonly path: string; readonly match: string };
}

/**
 * Which neutral objects each vendor object id comes from, computed with the drivers' own naming functions
 * (pure). Ids match `listVendorObjects`; HAProxy frontends (sections of haproxy.cfg) get `frontend/<name>`.
 */
export function vendorProvenance(kind: DriverKind, desired: DesiredState): Map<string, NeutralRef[]> {
  const out = new Map<string, NeutralRef[]>();
  const add = (id: string, ref: NeutralRef): void => void out.set(id, [...(out.get(id) ?? []), ref]);
  const app = desired.appliance;
  for (const vs of desired.virtualServices) {
    const ref: NeutralRef = { type: 'virtual-service', name: vs.name };
    if (kind === 'vtm') {
      for (const k of ['vs', 'route', 'request', 'response'] as const)
        add(`${k === 'vs' ? 'virtual_servers' : 'rules'}/${vtmName(k, vs.name)}`, ref);
      if (vs.address.kind !== 'default') add(`traffic_ip_groups/${vtmName('tip', vs.address.ip)}`, ref);
    } else if (kind === 'loadmaster') {
      add(`vs/${ownerMark(app, 'vs', vs.name)}`, ref);
      for (const r of vs.routes)
        add(`rule/${ownerMark(app, 'rl', `${vs.name}|${r.host}|${r.path}|${r.match}`)}`, {
          type: 'route',
          name: `${vs.name} ${r.host}${r.path}`,
          route: { vs: vs.name, host: r.host, path: r.path, match: r.match },
        });
      if (vs.defaultPool !== null)
        add(`subvs/${ownerMark(app, 'sv', `default:${vs.defaultPool}`)}`, { type: 'pool', name: vs.defaultPool });
    } else {
      add(`frontend/${frontendName(vs.name)}`, ref);
      const stem = frontendName(vs.name).slice('fe:'.length);
      for (const suffix of ['exact.map', 'prefix.map', 'hosts.map', 'sni-exact.map', 'sni-wildcard.map'])
        add(`map/maps/${stem}.${suffix}`, ref);
      add(`file/crt-lists/${stem}.crtlist`, ref);
    }
  }
  for (const p of desired.pools) {
    const ref: NeutralRef = { type: 'pool', name: p.name };
    if (kind === 'vtm')
      for (const k of ['pool', 'monitor', 'persist'] as const)
        add(`${k === 'pool' ? 'pools' : k === 'monitor' ? 'monitors' : 'persistence'}/${vtmName(k, p.name)}`, ref);
    else if (kind === 'loadmaster') add(`subvs/${ownerMark(app, 'sv', p.name)}`, ref);
    else for (const mode of ['http', 'tcp'] as const) add(`backend/${backendName(p.name, mode)}`, ref);
  }
  for (const c of desired.certificates) {
    const ref: NeutralRef = { type: 'certificate', name: c.name };
    if (kind === 'vtm') add(`ssl/server_keys/${vtmName('key', c.name)}`, ref);
    else if (kind === 'loadmaster') add(`certificate/${certificateName(app, c.name, c.fingerprint)}`, ref);
    else add(`certificate/${certificatePath(c.name)}`, ref);
  }
  for (const b of desired.bindings) add(`binding/${b.target}`, { type: 'binding', name: b.target });
  return out;
}
