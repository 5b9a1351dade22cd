import type {
  DesiredState,
  ListenAddress,
  ObjectRef,
  PoolMember,
  Route,
  VirtualService,
} from '@portolan/desired-state';

/** One object of a desired state as the audit lists it: a stable key, a kind, and a one-line summary. */
export interface DesiredObject {
  /** Unique within the snapshot, e.g. `pool/default_web_80`, `route/vs-http-80/web.example.com/api`. */
  readonly key: string;
  readonly kind: 'virtual-service' | 'route' | 'pool' | 'member' | 'certificate' | 'binding' | 'condition';
  readonly summary: string;
  /** The Kubernetes objects it comes from, formatted `cluster/Kind/namespace/name`. */
  readonly sources: readonly string[];
  /** The object's content, compared by the diff (canonical order comes from the desired state itself). */
  readonly value: unknown;
}

/** `cluster/Kind/namespace/name` of an object reference. */
export function refString(r: ObjectRef): string {
  return r.namespace === '' ? `${r.cluster}/${r.kind}/${r.name}` : `${r.cluster}/${r.kind}/${r.namespace}/${r.name}`;
}

/** `10.0.0.1:80`, `default:80`, `shared 10.0.0.2:443`. */
export function listenString(address: ListenAddress, port: number): string {
  if (address.kind === 'default') return `default:${port}`;
  return address.kind === 'shared' ? `shared ${address.ip}:${port}` : `${address.ip}:${port}`;
}

/** `host/path` with `*` for any host; Exact paths marked with `=`. */
export function routeString(r: Pick<Route, 'host' | 'path' | 'match'>): string {
  const host = r.host === '' ? '*' : r.host;
  const path = r.path === '' ? '/*' : r.match === 'Exact' ? `=${r.path}` : r.path;
  return `${host}${path}`;
}

/** `10.1.0.5:8080 active w1 (cluster)` */
export function memberString(m: PoolMember): string {
  return `${m.address}:${m.port} ${m.state} w${m.weight}${m.cluster === '' ? '' : ` (${m.cluster})`}`;
}

/** Key of a route inside its virtual service. */
export function routeKey(vs: string, r: Pick<Route, 'host' | 'path' | 'match'>): string {
  return `route/${vs}/${routeString(r)}`;
}

/**
 * Every object of a desired state, in a stable order: virtual services with their routes, pools with their
 * members, certificates, service bindings, then conditions that are not plain acceptances.
 */
export function listDesiredObjects(d: DesiredState): DesiredObject[] {
  const out: DesiredObject[] = [];
  for (const vs of d.virtualServices) out.push(...virtualServiceObjects(vs));
  for (const p of d.pools) {
    const { members, ...rest } = p;
    out.push({
      key: `pool/${p.name}`,
      kind: 'pool',
      summary: `${members.length} member(s)${p.monitor ? `, monitor ${p.monitor.type}` : ''}${p.persistence ? `, persistence ${p.persistence.type}` : ''}${p.tlsToBackend ? ', TLS to backend' : ''}`,
      sources: p.services.map(refString),
      value: rest,
    });
    for (const m of members)
      out.push({
        key: `member/${p.name}/${m.address}:${m.port}`,
        kind: 'member',
        summary: memberString(m),
        sources: p.services.map(refString),
        value: m,
      });
  }
  for (const c of d.certificates) {
    out.push({
      key: `certificate/${c.name}`,
      kind: 'certificate',
      summary: `${refString(c.secret)} fp ${c.fingerprint.slice(0, 12) || '(pending)'} hosts ${c.hosts.join(',') || '-'}`,
      sources: [refString(c.secret)],
      value: c,
    });
  }
  for (const b of d.bindings) {
    out.push({
      key: `binding/${b.target}`,
      kind: 'binding',
      summary: `${refString(b.service)} → ${b.members.map(memberString).join(', ') || '(no members)'}`,
      sources: [refString(b.service)],
      value: b,
    });
  }
  for (const c of d.conditions) {
    if (c.type === 'Accepted') continue;
    out.push({
      key: `condition/${refString(c.object)}/${c.reason}`,
      kind: 'condition',
      summary: `${c.type} ${c.reason}: ${c.message}`,
      sources: [refString(c.object)],
      value: c,
    });
  }
  return out;
}

function virtualServiceObjects(vs: VirtualService): DesiredObject[] {
  const { routes, ...header } = vs;
  const flags = [
    vs.protocol,
    vs.certificates.length > 0 ? `certs ${vs.certificates.join(',')}` : '',
    vs.defaultPool !== null ? `default → ${vs.defaultPool}` : '',
    vs.redirectToHttpsPort !== null ? `redirect → https:${vs.redirectToHttpsPort}` : '',
  ].filter((s) => s !== '');
  const out: DesiredObject[] = [
    {
      key: `virtual-service/${vs.name}`,
      kind: 'virtual-service',
      summary: `${listenString(vs.address, vs.port)} ${flags.join(', ')} (${routes.length} route(s))`,
      sources: vs.owners.map(refString),
      value: header,
    },
  ];
  for (const r of routes) {
    out.push({
      key: routeKey(vs.name, r),
      kind: 'route',
      summary: `${routeString(r)} → ${r.redirectToHttpsPort !== undefined ? `redirect https:${r.redirectToHttpsPort}` : r.pool}`,
      sources: [refString(r.source)],
      value: r,
    });
  }
  return out;
}
