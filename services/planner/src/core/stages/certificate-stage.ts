import { buildCertificate } from './assemble-parts.ts';
import type { PlanPass, Stage, StageContext } from './stage.ts';
import type { TlsStage } from './tls-stage.ts';

/**
 * Stage 8, certificates: writes every certificate whose winning claims changed (its hosts are the union of what it
 * won), and removes those that serve nothing. Holds no state of its own.
 */
export class CertificateStage implements Stage {
  private readonly ctx: StageContext;
  private readonly tls: TlsStage;

  constructor(ctx: StageContext, tls: TlsStage) {
    this.ctx = ctx;
    this.tls = tls;
  }

  run({ work }: PlanPass): void {
    if (work.certs.size === 0) return;
    for (const name of work.certs) {
      const wins = this.tls.winsOf(name);
      if (wins === undefined || wins.size === 0) this.ctx.encoder.deleteCertificate(name);
      else this.ctx.encoder.setCertificate(buildCertificate([...wins.values()]));
    }
  }
}
