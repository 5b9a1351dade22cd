import { worldKeyString } from '@portolan/kube-model';
import { buildVirtualService, defaultCertificateOf } from './assemble-parts.ts';
import type { DefaultBackendStage } from './default-backend-stage.ts';
import type { ListenerStage } from './listener-stage.ts';
import type { PlanPass, Stage, StageContext } from './stage.ts';
import type { TlsStage } from './tls-stage.ts';

/**
 * Stage 7, virtual services: writes the header, owners and certificate list of every listener the stages before
 * marked, from the listener, default-backend and TLS stages' results. Holds no state of its own.
 */
export class VirtualServiceStage implements Stage {
  private readonly ctx: StageContext;
  private readonly listeners: ListenerStage;
  private readonly defaults: DefaultBackendStage;
  private readonly tls: TlsStage;

  constructor(ctx: StageContext, listeners: ListenerStage, defaults: DefaultBackendStage, tls: TlsStage) {
    this.ctx = ctx;
    this.listeners = listeners;
    this.defaults = defaults;
    this.tls = tls;
  }

  run({ work }: PlanPass): void {
    if (work.vs.size > 0) for (const vs of work.vs) this.write(vs, work.owners.has(vs));
  }

  private write(name: string, ownersChanged: boolean): void {
    const { encoder } = this.ctx;
    const l = this.listeners.listener(name);
    if (l === undefined) return;
    const wins = this.tls.winsOn(name);
    const firstWinOf = (key: string): string | null => {
      const hosts = wins?.get(key);
      if (hosts === undefined) return null;
      let best: string | null = null;
      for (const h of hosts.keys()) if (best === null || h < best) best = h;
      return best === null ? null : hosts.get(best)!;
    };
    // No certificate won on this listener (plain HTTP, or TLS without usable Secrets): skip the walk over its owners.
    const defaultCert =
      wins === undefined || wins.size === 0
        ? null
        : defaultCertificateOf(l.owners, worldKeyString, this.tls.winnerOf(name, ''), firstWinOf);
    const v = buildVirtualService(l, [], this.defaults.defaultPoolOf(name), defaultCert, this.tls.certificatesOn(name));
    const { owners, certificates, routes: _routes, ...header } = v;
    encoder.setVsHeader(header);
    if (ownersChanged) encoder.setVsOwners(name, owners);
    encoder.setVsCertificates(name, certificates[0] ?? null, certificates.slice(1));
  }
}
