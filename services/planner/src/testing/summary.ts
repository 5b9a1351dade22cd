import assert from 'node:assert/strict';
import { canonicalJson } from '@portolan/desired-state';
import type { DesiredState, ListenAddress, ObjectRef } from '@portolan/desired-state';
import type { KubeWatchEvent } from '@portolan/kube-model';
import type { ApplianceConfig, ClusterConfig } from '@portolan/fleet-config';
import { planFromScratch } from '../core/plan-from-scratch.ts';
import { Planner } from '../core/planner.ts';

/**
 * A complete, line-per-item rendering of a DesiredState for table tests: every virtual service, route, pool,
 * member, certificate, binding and condition appears, so comparing summaries compares whole outputs.
 */
export function summarize(d: DesiredState, o: { messages?: boolean } = {}): string[] {
  const ref = (r: ObjectRef): string => `${r.cluster}/${r.namespace}/${r.name}`;
  const addr = (a: ListenAddress): string => (a.kind === 'default' ? 'default' : `${a.kind}:${a.ip}`);
  const lines: string[] = [];
  for (const v of d.virtualServices) {
    const extras = [
      v.defaultPool === null ? '' : ` default=${v.defaultPool}`,
      v.redirectToHttpsPort === null ? '' : ` redirect=${v.redirectToHttpsPort}`,
      v.certificates.length === 0 ? '' : ` certs=${v.certificates.join(',')}`,
      v.requestScript === null ? '' : ` req=${JSON.stringify(v.requestScript)}`,
      v.responseScript === null ? '' : ` resp=${JSON.stringify(v.responseScript)}`,
      v.customization === null ? '' : ` custom=${JSON.stringify(v.customization)}`,
    ].join('');
    lines.push(`vs ${v.name} ${v.protocol} ${addr(v.address)} owners=${v.owners.map(ref).join(',')}${extras}`);
    for (const r of v.routes)
      lines.push(
        `  ${r.host || '*'}${r.path} ${r.match} -> ${r.pool}${r.redirectToHttpsPort === undefined ? '' : ` redirect:${r.redirectToHttpsPort}`} (${ref(r.source)})`,
      );
  }
  for (const p of d.pools) {
    const extras = [
      p.monitor === null ? '' : ` monitor=${p.monitor.type}${p.monitor.path ? `:${p.monitor.path}` : ''}`,
      p.persistence === null
        ? ''
        : ` persist=${p.persistence.type}${p.persistence.cookie ? `:${p.persistence.cookie}` : ''}`,
      p.tlsToBackend ? ' tls' : '',
      p.customization === null ? '' : ` custom=${JSON.stringify(p.customization)}`,
    ].join('');
    lines.push(
      `pool ${p.name}${extras} [${p.members.map((m) => `${m.address}:${m.port}${m.state === 'draining' ? '~' : ''}${m.weight === 1 ? '' : `*${m.weight}`}@${m.cluster}`).join(' ')}]`,
    );
  }
  for (const c of d.certificates)
    lines.push(
      `cert ${c.name} ${c.fingerprint.slice(0, 6) || '-'} hosts=${c.hosts.map((h) => h || '*').join(',')}${c.acme ? ' acme' : ''}`,
    );
  for (const b of d.bindings)
    lines.push(
      `binding ${b.target} ${ref(b.service)} [${b.members.map((m) => `${m.address}:${m.port}@${m.cluster}`).join(' ')}]`,
    );
  for (const c of d.conditions)
    lines.push(`${c.type} ${ref(c.object)} ${c.reason}${o.messages ? `: ${c.message}` : ''}`);
  return lines;
}

/** Plans events incrementally (one planDirty at the end) and checks it equals the from-scratch oracle; returns the state. */
export function planEvents(
  config: { clusters: ClusterConfig[]; appliances: ApplianceConfig[] },
  events: readonly KubeWatchEvent[],
  appliance = 'lb',
): DesiredState {
  const p = new Planner(config);
  for (const e of events) p.applyEvent(e);
  p.planDirty();
  const incremental = p.desiredState(appliance)!;
  const scratch = planFromScratch(p.world, config).get(appliance)!.desired;
  if (canonicalJson(incremental) !== canonicalJson(scratch)) {
    assert.fail(
      `incremental plan differs from the from-scratch oracle:\n${summarize(incremental, { messages: true }).join('\n')}\n---\n${summarize(scratch, { messages: true }).join('\n')}`,
    );
  }
  return incremental;
}
