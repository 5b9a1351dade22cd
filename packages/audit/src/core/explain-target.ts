import { canonicalJson, type DesiredState, type DriverKind, type ObjectRef } from '@portolan/desired-state';
import { parseHostPath, routeRequest, type ExplainedRequest, type RequestMatch } from './request-route.ts';
import type { VendorObject } from './vendor-objects.ts';
import { vendorProvenance, type NeutralRef } from './vendor-provenance.ts';

/** What `explain` was asked about, resolved against one desired state and its rendering. */
export type ExplainTarget =
  | { readonly type: 'vendor'; readonly id: string; readonly neutral: readonly NeutralRef[] }
  | {
      readonly type: 'route';
      readonly host: string;
      readonly path: string;
      /** The request's method and headers, when given: routes' conditions are then judged. */
      readonly request?: ExplainedRequest;
      readonly matches: readonly RequestMatch[];
    }
  | { readonly type: 'unknown'; readonly message: string };

/** A Kubernetes object that fed the target, and why. */
export interface KubeInput {
  readonly ref: ObjectRef;
  readonly role: string;
}

/**
 * Resolves the query: a vendor object (`type/name`, its `name`, or a unique part of it, as `portolan at` lists them; HAProxy
 * frontends as `frontend/<name>`), or a `host/path` request. Vendor objects win when both could match.
 */
export function resolveExplainTarget(
  query: string,
  kind: DriverKind,
  desired: DesiredState,
  rendered: readonly VendorObject[],
  request?: ExplainedRequest,
): ExplainTarget {
  const provenance = vendorProvenance(kind, desired);
  // Rendered objects, plus HAProxy frontends (sections of haproxy.cfg, not listed objects of their own).
  const ids = new Set([
    ...rendered.map((o) => o.id),
    ...[...provenance.keys()].filter((id) => id.startsWith('frontend/')),
  ]);
  const suffix = ids.has(query) ? [query] : [...ids].filter((id) => id.endsWith(`/${query}`));
  // Names carry a hash suffix (`portolan-pl-shop_web_80~f2105b6d`): a unique partial name is enough.
  const exact = suffix.length > 0 ? suffix : [...ids].filter((id) => id.includes(query));
  if (exact.length === 1) return { type: 'vendor', id: exact[0]!, neutral: provenance.get(exact[0]!) ?? [] };
  if (exact.length > 1) return { type: 'unknown', message: `"${query}" is ambiguous: ${exact.join(', ')}` };
  const hp = parseHostPath(query);
  if (hp !== null) {
    const matches = desired.virtualServices
      .map((vs) => routeRequest(vs, hp.host, hp.path, request))
      .filter((m) => m.outcome !== 'not-found');
    if (matches.length > 0)
      return { type: 'route', host: hp.host, path: hp.path, ...(request === undefined ? {} : { request }), matches };
    return { type: 'unknown', message: `no virtual service of ${desired.appliance} routes ${query}` };
  }
  const sample = rendered.slice(0, 5).map((o) => o.id);
  return {
    type: 'unknown',
    message: `no vendor object "${query}" on ${desired.appliance}${sample.length > 0 ? ` (objects look like: ${sample.join(', ')})` : ''}`,
  };
}

/**
 * The Kubernetes objects a target comes from: Ingresses (owners, route sources), Services (pool services),
 * Secrets (certificates). EndpointSlices are found by the shell from the Services (their label), in the archive.
 */
export function kubeInputsOf(target: ExplainTarget, desired: DesiredState): KubeInput[] {
  const out = new Map<string, KubeInput>();
  const add = (ref: ObjectRef, role: string): void => {
    const key = `${ref.cluster}/${ref.kind}/${ref.namespace}/${ref.name}`;
    if (!out.has(key)) out.set(key, { ref, role });
  };
  const pool = (name: string): void => {
    for (const s of desired.pools.find((p) => p.name === name)?.services ?? []) add(s, `backs pool ${name}`);
  };
  if (target.type === 'route') {
    for (const m of target.matches) {
      if (m.route !== null) {
        const rule = m.route.via === undefined ? '' : `rule ${m.route.via.rule}: `;
        add(m.route.source, `${rule}routes ${m.route.host || '*'}${m.route.path || '/'} on ${m.vs}`);
        if (m.listener !== null) add(m.listener.gateway, `listener ${m.listener.name} carries ${m.vs}`);
      } else
        for (const o of desired.virtualServices.find((v) => v.name === m.vs)?.owners ?? [])
          add(o, `default backend of ${m.vs}`);
      if (m.pool !== null) pool(m.pool);
    }
  } else if (target.type === 'vendor') {
    for (const n of target.neutral) neutralInputs(n, desired, add, pool);
  }
  return [...out.values()];
}

function neutralInputs(
  n: NeutralRef,
  desired: DesiredState,
  add: (ref: ObjectRef, role: string) => void,
  pool: (name: string) => void,
): void {
  if (n.type === 'virtual-service') {
    const vs = desired.virtualServices.find((v) => v.name === n.name);
    for (const o of vs?.owners ?? []) add(o, `owns ${n.name}`);
    for (const r of vs?.routes ?? []) add(r.source, `routes on ${n.name}`);
    for (const c of vs?.certificates ?? []) {
      const cert = desired.certificates.find((x) => x.name === c);
      if (cert !== undefined) add(cert.secret, `certificate ${c}`);
    }
  } else if (n.type === 'pool') {
    for (const vs of desired.virtualServices) {
      for (const r of vs.routes) if (r.pool === n.name) add(r.source, `routes to ${n.name}`);
      if (vs.defaultPool === n.name) for (const o of vs.owners) add(o, `default backend ${n.name}`);
    }
    pool(n.name);
  } else if (n.type === 'certificate') {
    const cert = desired.certificates.find((c) => c.name === n.name);
    if (cert !== undefined) add(cert.secret, `certificate ${n.name}`);
    for (const vs of desired.virtualServices)
      if (vs.certificates.includes(n.name)) for (const o of vs.owners) add(o, `serves certificate ${n.name}`);
  } else if (n.type === 'route' && n.route !== undefined) {
    const route = desired.virtualServices
      .find((v) => v.name === n.route!.vs)
      ?.routes.find((r) => r.host === n.route!.host && r.path === n.route!.path && r.match === n.route!.match);
    if (route !== undefined) {
      add(route.source, `routes ${n.name}`);
      pool(route.pool);
    }
  } else if (n.type === 'binding') {
    const b = desired.bindings.find((x) => x.target === n.name);
    if (b !== undefined) add(b.service, `feeds ${n.name}`);
  }
}

/**
 * What must stay equal for the target to count as unchanged between two snapshots: the rendered vendor object,
 * or for a request the matched routes and the pools (with members) they lead to. Null when absent.
 */
export function explainFingerprint(
  target: ExplainTarget,
  desired: DesiredState,
  rendered: readonly VendorObject[],
): string | null {
  if (target.type === 'vendor') {
    const o = rendered.find((x) => x.id === target.id);
    if (o !== undefined) return canonicalJson(o.value);
    const present = target.neutral
      .filter((n) => neutralValue(n, desired) !== undefined)
      .map((n) => neutralValue(n, desired));
    return present.length === 0 ? null : canonicalJson(present);
  }
  if (target.type === 'route') {
    const matches = desired.virtualServices
      .map((vs) => routeRequest(vs, target.host, target.path, target.request))
      .filter((m) => m.outcome !== 'not-found');
    if (matches.length === 0) return null;
    return canonicalJson(
      matches.map((m) => ({ ...m, poolValue: desired.pools.find((p) => p.name === m.pool) ?? null })),
    );
  }
  return null;
}

function neutralValue(n: NeutralRef, d: DesiredState): unknown {
  if (n.type === 'virtual-service') return d.virtualServices.find((v) => v.name === n.name);
  if (n.type === 'pool') return d.pools.find((p) => p.name === n.name);
  if (n.type === 'certificate') return d.certificates.find((c) => c.name === n.name);
  if (n.type === 'binding') return d.bindings.find((b) => b.target === n.name);
  return d.virtualServices
    .find((v) => v.name === n.route?.vs)
    ?.routes.find((r) => r.host === n.route?.host && r.path === n.route?.path);
}
