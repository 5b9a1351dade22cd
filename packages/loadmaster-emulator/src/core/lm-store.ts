import type { LmCertificate, LmRealServer, LmRule, LmState, LmVirtualService } from './lm-state.ts';
import type { LmParams } from './lm-params.ts';

/**
 * Lookups and structural mutations over an LmState, shared by the command handlers and by tests that
 * change the appliance "by hand" (out-of-band deletes). Pure: no I/O, no clock. Mutable by design: it is the
 * emulated appliance's configuration, changed by the commands it receives.
 */
export class LmStore {
  readonly state: LmState;

  constructor(state: LmState) {
    this.state = state;
  }

  /** The VS or SubVS with this index. */
  vsByIndex(index: number): LmVirtualService | undefined {
    return this.state.virtualServices.find((v) => v.index === index);
  }

  /** The top-level VS listening on (address, port, protocol). */
  vsByAddress(address: string, port: string, protocol: string): LmVirtualService | undefined {
    return this.state.virtualServices.find(
      (v) => v.parent === 0 && v.address === address && v.port === port && v.protocol === protocol.toLowerCase(),
    );
  }

  /** Resolves the `vs` addressing of a command: `vs=<Index>` or `vs=<ip>&port=<p>[&prot=tcp|udp]`. */
  resolveVs(params: LmParams): LmVirtualService | undefined {
    const vs = params.get('vs') ?? '';
    const port = params.get('port');
    if (/^\d+$/.test(vs) && (port === undefined || port === '')) return this.vsByIndex(Number(vs));
    return this.vsByAddress(vs, String(Number(port ?? '')), params.get('prot') ?? 'tcp');
  }

  /** The SubVSs of a parent, in link order. */
  subVssOf(parent: LmVirtualService): LmVirtualService[] {
    return parent.realServers
      .filter((rs) => rs.subVs !== 0)
      .map((rs) => this.vsByIndex(rs.subVs))
      .filter((v): v is LmVirtualService => v !== undefined);
  }

  /** The link of a SubVS inside its parent. */
  linkOf(sub: LmVirtualService): LmRealServer | undefined {
    return this.vsByIndex(sub.parent)?.realServers.find((rs) => rs.subVs === sub.index);
  }

  /**
   * Resolves the `rs` addressing within a VS: `rs=!<RsIndex>`, `rs=<ip>&rsport=<p>`, or a SubVS name.
   * Real servers are matched by address and port; a SubVS link by its RsIndex or its SubVS's nickname.
   */
  resolveRs(vs: LmVirtualService, params: LmParams): LmRealServer | undefined {
    const rs = params.get('rs') ?? '';
    if (rs.startsWith('!')) return vs.realServers.find((r) => String(r.rsIndex) === rs.slice(1));
    const port = params.get('rsport');
    const byAddr = vs.realServers.find(
      (r) => r.subVs === 0 && r.addr === rs && (port === undefined || String(r.port) === port),
    );
    if (byAddr !== undefined) return byAddr;
    return vs.realServers.find((r) => r.subVs !== 0 && rs !== '' && this.vsByIndex(r.subVs)?.props['NickName'] === rs);
  }

  /** Deletes a VS (its SubVSs with it) or a SubVS (and its link in the parent). */
  deleteVs(index: number): boolean {
    const vs = this.vsByIndex(index);
    if (vs === undefined) return false;
    for (const link of vs.realServers) if (link.subVs !== 0) this.deleteVs(link.subVs);
    const parent = this.vsByIndex(vs.parent);
    if (parent !== undefined) parent.realServers = parent.realServers.filter((rs) => rs.subVs !== index);
    this.state.virtualServices = this.state.virtualServices.filter((v) => v.index !== index);
    return true;
  }

  /** Removes one real server (by RsIndex) from a VS; false when there is no such real server. */
  deleteRealServer(vsIndex: number, rsIndex: number): boolean {
    const vs = this.vsByIndex(vsIndex);
    const before = vs?.realServers.length ?? 0;
    if (vs === undefined) return false;
    vs.realServers = vs.realServers.filter((rs) => rs.subVs !== 0 || rs.rsIndex !== rsIndex);
    return vs.realServers.length < before;
  }

  /** The named rule. */
  rule(name: string): LmRule | undefined {
    return this.state.rules.find((r) => r.name === name);
  }

  /** True when any VS or real server refers to the rule. */
  isRuleInUse(name: string): boolean {
    return this.state.virtualServices.some(
      (v) =>
        Object.values(v.rules).some((list: string[]) => list.includes(name)) ||
        v.realServers.some((rs) => rs.rules.includes(name)),
    );
  }

  /** The named certificate. */
  certificate(name: string): LmCertificate | undefined {
    return this.state.certificates.find((c) => c.name === name);
  }

  /** True when a VS lists the certificate in its CertFile. */
  isCertificateInUse(name: string): boolean {
    return this.state.virtualServices.some((v) => certFilesOf(v).includes(name));
  }
}

/** The certificate names a VS serves (CertFile is a space-separated list). */
export function certFilesOf(vs: LmVirtualService): string[] {
  return String(vs.props['CertFile'] ?? '')
    .split(/\s+/)
    .filter((n) => n !== '');
}
