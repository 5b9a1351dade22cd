import type { DesiredState } from '@portolan/desired-state';

/** A one-line-per-item rendering of a desired state for people (`portolan plan -o summary`). */
export function summarizeDesiredState(d: DesiredState): string[] {
  const lines = [`appliance ${d.appliance} (${d.driver})`];
  for (const v of d.virtualServices) {
    const addr = v.address.kind === 'default' ? 'default address' : `${v.address.kind} ${v.address.ip}`;
    const extra = [
      v.redirectToHttpsPort === null ? '' : ` redirects to https:${v.redirectToHttpsPort}`,
      v.defaultPool === null ? '' : ` default → ${v.defaultPool}`,
      v.certificates.length ? ` certs ${v.certificates.join(', ')}` : '',
    ].join('');
    lines.push(`listener ${v.name}: ${v.protocol} on ${addr}:${v.port}${extra}`);
    for (const r of v.routes)
      lines.push(
        `  ${r.host || '*'}${r.path} (${r.match}) → ${r.redirectToHttpsPort === undefined ? r.pool : `redirect https:${r.redirectToHttpsPort}`}   [${r.source.namespace}/${r.source.name}]`,
      );
  }
  for (const p of d.pools)
    lines.push(
      `pool ${p.name}: ${p.members.length === 0 ? 'no members' : p.members.map((m) => `${m.address}:${m.port}${m.state === 'draining' ? ' (draining)' : ''}`).join(', ')}`,
    );
  for (const c of d.certificates)
    lines.push(
      `certificate ${c.name}: Secret ${c.secret.namespace}/${c.secret.name} for ${c.hosts.map((h) => h || '*').join(', ')}${c.acme ? ' (ACME)' : ''}`,
    );
  for (const b of d.bindings)
    lines.push(
      `binding VS ${b.target} ← Service ${b.service.namespace}/${b.service.name}: ${b.members.map((m) => `${m.address}:${m.port}`).join(', ') || 'no members'}`,
    );
  return lines;
}
