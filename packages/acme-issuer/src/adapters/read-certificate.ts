import { X509Certificate } from 'node:crypto';

/** The facts the issuer and its tests read from a certificate (never the key). */
export interface CertificateSummary {
  readonly notAfterMs: number;
  /** DNS names from the subjectAltName extension, in certificate order. */
  readonly dnsNames: readonly string[];
  /** The issuer's distinguished name, as Node prints it (`CN=…`). */
  readonly issuer: string;
}

/** Reads the first certificate of a PEM chain; null when it is not a certificate. */
export function readCertificate(pem: string): CertificateSummary | null {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    return null;
  }
  const dnsNames = (cert.subjectAltName ?? '')
    .split(/,\s*/)
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4));
  return { notAfterMs: cert.validToDate.getTime(), dnsNames, issuer: cert.issuer };
}

/** Splits a PEM bundle into its certificates, leaf first. */
export function splitPemChain(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
}
