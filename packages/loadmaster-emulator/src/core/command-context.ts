import type { LmStore } from './lm-store.ts';

/** What a certificate inspector reports about uploaded PEM (done by the shell: parsing needs node:crypto). */
export type CertificateInspection =
  | { readonly ok: true; readonly type: 'RSA' | 'ECC'; readonly publicValue: string; readonly certificatePem: string }
  | { readonly ok: false; readonly reason: string };

/** Everything a command handler may use besides its parameters. Capabilities with effects are injected. */
export interface CommandContext {
  readonly store: LmStore;
  /** The authenticated user. */
  readonly user: string;
  /** Binary input: the v1 POST body or the decoded v2 `data` member; null when none was sent. */
  readonly data: Uint8Array | null;
  readonly inspectCertificate: (pem: string) => CertificateInspection;
  readonly newApiKey: () => string;
}
