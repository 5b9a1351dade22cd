import type { Operation } from '@portolan/appliance-driver';
import type { JsonObject } from '@portolan/desired-state';
import type { LmRealServerSpec, LmSubVsSpec, LmTargetVs, LmVendorState, LmVsSpec } from './lm-vendor-state.ts';
import { diffRealServers, type RealServerScope } from './diff-real-servers.ts';
import { diffRuleList, isSameRule, ruleParams } from './diff-rule-lists.ts';

/**
 * Minimal ordered operations turning the observed LoadMaster into the desired one (pure). One operation is one
 * API call (a SubVS create is two: createsubvs, then its nickname), so a one-endpoint change is one call.
 * Order follows the appliance's references: certificates and rules first (a VS names certificates, a SubVS
 * names rules), then VSs, SubVSs, rule assignments, real servers; deletions last, parents before what they
 * referenced (a VS before the certificates and rules it used; deleting a VS removes its SubVSs and RSs).
 */
export function diffVendorState(desired: LmVendorState, observed: LmVendorState): readonly Operation[] {
  const obsVs = new Map(observed.virtualServices.map((v) => [v.nickname, v] as const));
  const desVs = new Map(desired.virtualServices.map((v) => [v.nickname, v] as const));
  const obsRules = new Map(observed.rules.map((r) => [r.name, r] as const));
  const desRules = new Set(desired.rules.map((r) => r.name));
  const desCerts = new Set(desired.certificates.map((c) => c.name));
  const ops: Operation[] = certificateUploads(desired, observed);
  for (const rule of desired.rules) {
    const seen = obsRules.get(rule.name);
    if (seen !== undefined && isSameRule(rule, seen)) continue;
    const action = seen === undefined ? 'create' : 'update';
    ops.push(op('rule', rule.name, action, ruleParams(rule), `${action} content rule ${rule.name} ${rule.pattern}`));
  }
  const vsDeletes: Operation[] = [];
  for (const vs of desired.virtualServices) {
    const seen = obsVs.get(vs.nickname);
    if (seen !== undefined && (seen.address !== vs.address || seen.port !== vs.port)) {
      vsDeletes.push(deleteVs(seen, 'moved'));
      ops.push(...createVs(vs));
    } else if (seen === undefined) {
      ops.push(...createVs(vs));
    } else {
      ops.push(...updateVs(vs, seen));
    }
  }
  for (const vs of observed.virtualServices)
    if (!desVs.has(vs.nickname)) vsDeletes.push(deleteVs(vs, 'no longer desired'));
  ops.push(...diffBindings(desired, observed.targets));
  ops.push(...vsDeletes);
  for (const rule of observed.rules)
    if (!desRules.has(rule.name))
      ops.push(op('rule', rule.name, 'delete', { name: rule.name }, `delete content rule ${rule.name}`));
  for (const cert of observed.certificates)
    if (!desCerts.has(cert.name))
      ops.push(op('certificate', cert.name, 'delete', { name: cert.name }, `delete certificate ${cert.name}`));
  return ops;
}

/** Uploads of the certificates the appliance lacks (an ACME certificate without its Secret yet waits). */
function certificateUploads(desired: LmVendorState, observed: LmVendorState): Operation[] {
  const ops: Operation[] = [];
  for (const cert of desired.certificates) {
    if (observed.certificates.some((c) => c.name === cert.name) || cert.secret === null) continue;
    const secret = {
      cluster: cert.secret.cluster,
      kind: cert.secret.kind,
      namespace: cert.secret.namespace,
      name: cert.secret.name,
    };
    ops.push(
      op(
        'certificate',
        cert.name,
        'create',
        { name: cert.name, secret },
        `upload certificate ${cert.name} from Secret ${secret.namespace}/${secret.name}`,
      ),
    );
  }
  return ops;
}

function op(
  objectType: string,
  objectName: string,
  action: Operation['action'],
  payload: JsonObject | null,
  summary: string,
): Operation {
  return { objectType, objectName, action, payload, summary };
}

function createVs(vs: LmVsSpec): Operation[] {
  const ops = [
    op(
      'virtual-service',
      vs.nickname,
      'create',
      { nickname: vs.nickname, address: vs.address, port: vs.port, protocol: vs.protocol, params: vs.params },
      `create virtual service ${vs.nickname} on ${vs.address}:${vs.port}`,
    ),
  ];
  for (const sub of vs.subVss) ops.push(...createSubVs(vs.nickname, sub));
  ops.push(...diffRuleList(vs.nickname, null, 'pre', vs.preRules ?? [], []));
  ops.push(...diffRealServers({ kind: 'vs', vs: vs.nickname }, vs.realServers, []));
  return ops;
}

function createSubVs(parent: string, sub: LmSubVsSpec): Operation[] {
  const params = sub.params ?? {};
  const ops = [
    op(
      'sub-vs',
      `${parent}/${sub.nickname}`,
      'create',
      Object.keys(params).length === 0
        ? { parent, nickname: sub.nickname }
        : { parent, nickname: sub.nickname, params },
      `create SubVS ${sub.nickname} in ${parent}`,
    ),
  ];
  for (const rule of sub.rules) ops.push(assignRule(parent, sub.nickname, rule, 'create'));
  ops.push(...diffRuleList(parent, sub.nickname, 'request', sub.requestRules ?? [], []));
  ops.push(...diffRuleList(parent, sub.nickname, 'response', sub.responseRules ?? [], []));
  ops.push(...diffRealServers({ kind: 'subvs', vs: parent, subVs: sub.nickname }, sub.realServers, []));
  return ops;
}

function assignRule(parent: string, subVs: string, rule: string, action: 'create' | 'delete'): Operation {
  const verb = action === 'create' ? 'assign' : 'unassign';
  return op(
    'rule-assignment',
    `${parent}/${subVs}/${rule}`,
    action,
    { parent, subVs, rule },
    `${verb} rule ${rule} ${action === 'create' ? 'to' : 'from'} SubVS ${subVs}`,
  );
}

/** The desired parameters the appliance does not hold yet (parameters render leaves out are not compared). */
function changedParams(
  want: Readonly<Record<string, string>> | undefined,
  have: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const changed: Record<string, string> = {};
  for (const [k, v] of Object.entries(want ?? {})) if ((have?.[k] ?? '') !== v) changed[k] = v;
  return changed;
}

function updateVs(vs: LmVsSpec, seen: LmVsSpec): Operation[] {
  const ops: Operation[] = [];
  const changed = changedParams(vs.params, seen.params);
  if (Object.keys(changed).length > 0) {
    ops.push(
      op(
        'virtual-service',
        vs.nickname,
        'update',
        { nickname: vs.nickname, params: changed },
        `update virtual service ${vs.nickname}: ${Object.keys(changed).join(', ')}`,
      ),
    );
  }
  const seenSubs = new Map(seen.subVss.map((s) => [s.nickname, s] as const));
  const wanted = new Set(vs.subVss.map((s) => s.nickname));
  for (const sub of seen.subVss) {
    if (wanted.has(sub.nickname)) continue;
    const payload: Record<string, string | number> = { parent: vs.nickname, nickname: sub.nickname };
    if (sub.index !== undefined) payload['index'] = sub.index;
    ops.push(
      op(
        'sub-vs',
        `${vs.nickname}/${sub.nickname || `#${sub.index ?? '?'}`}`,
        'delete',
        payload,
        `delete SubVS ${sub.nickname || `#${sub.index ?? '?'}`} of ${vs.nickname}`,
      ),
    );
  }
  for (const sub of vs.subVss) {
    const old = seenSubs.get(sub.nickname);
    ops.push(...(old === undefined ? createSubVs(vs.nickname, sub) : updateSubVs(vs.nickname, sub, old)));
  }
  ops.push(...diffRuleList(vs.nickname, null, 'pre', vs.preRules ?? [], seen.preRules ?? []));
  ops.push(...diffRealServers({ kind: 'vs', vs: vs.nickname }, vs.realServers, seen.realServers));
  return ops;
}

/** Changes to one existing SubVS: parameters, rule assignments, header rule lists, real servers. */
function updateSubVs(parent: string, sub: LmSubVsSpec, old: LmSubVsSpec): Operation[] {
  const ops: Operation[] = [];
  const params = changedParams(sub.params, old.params);
  if (Object.keys(params).length > 0)
    ops.push(
      op(
        'sub-vs',
        `${parent}/${sub.nickname}`,
        'update',
        { parent, nickname: sub.nickname, params },
        `update SubVS ${sub.nickname} of ${parent}: ${Object.keys(params).join(', ')}`,
      ),
    );
  for (const rule of old.rules)
    if (!sub.rules.includes(rule)) ops.push(assignRule(parent, sub.nickname, rule, 'delete'));
  for (const rule of sub.rules)
    if (!old.rules.includes(rule)) ops.push(assignRule(parent, sub.nickname, rule, 'create'));
  ops.push(...diffRuleList(parent, sub.nickname, 'request', sub.requestRules ?? [], old.requestRules ?? []));
  ops.push(...diffRuleList(parent, sub.nickname, 'response', sub.responseRules ?? [], old.responseRules ?? []));
  ops.push(...diffRealServers({ kind: 'subvs', vs: parent, subVs: sub.nickname }, sub.realServers, old.realServers));
  return ops;
}

function deleteVs(vs: LmVsSpec, why: string): Operation {
  const payload: Record<string, string | number> = { nickname: vs.nickname };
  if (vs.index !== undefined) payload['index'] = vs.index;
  return op('virtual-service', vs.nickname, 'delete', payload, `delete virtual service ${vs.nickname} (${why})`);
}

/** Service mode: real servers of pre-existing VSs. A missing VS is reported (one operation), never created. */
function diffBindings(desired: LmVendorState, targets: readonly LmTargetVs[]): Operation[] {
  const ops: Operation[] = [];
  for (const binding of desired.bindings) {
    const target = findTarget(targets, binding.target);
    if (target === undefined) {
      ops.push(
        op(
          'binding',
          binding.target,
          'update',
          { target: binding.target, service: binding.service, missing: true },
          `virtual service ${binding.target} for Service ${binding.service} does not exist on the LoadMaster; nothing is created`,
        ),
      );
      continue;
    }
    const scope: RealServerScope = { kind: 'target', vs: binding.target };
    const observed: LmRealServerSpec[] = target.realServers.map(({ address, port, weight, enable }) => ({
      address,
      port,
      weight,
      enable,
    }));
    ops.push(...diffRealServers(scope, binding.realServers, observed));
  }
  return ops;
}

/** Finds a binding's VS by index ("12") or "ip:port:prot" (the address may be IPv6, so split from the right). */
export function findTarget(targets: readonly LmTargetVs[], target: string): LmTargetVs | undefined {
  if (/^\d+$/.test(target)) return targets.find((t) => t.index === Number(target));
  const parts = target.split(':');
  const prot = (parts.pop() ?? '').toLowerCase();
  const port = Number(parts.pop());
  const address = parts.join(':');
  return targets.find((t) => t.address === address && t.port === port && t.protocol.toLowerCase() === prot);
}
