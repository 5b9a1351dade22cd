import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { CertificateInspection } from '../core/command-context.ts';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const KEY_BLOCK =
  /-----BEGIN (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----/;

/** Checks an uploaded PEM the way the appliance needs it: a certificate plus the private key that matches it. */
export function inspectCertificate(pem: string): CertificateInspection {
  const certText = CERT_BLOCK.exec(pem)?.[0];
  const keyText = KEY_BLOCK.exec(pem)?.[0];
  if (certText === undefined) return { ok: false, reason: 'no certificate' };
  if (keyText === undefined) return { ok: false, reason: 'no private key' };
  try {
    const cert = new X509Certificate(certText);
    const key = createPrivateKey(keyText);
    if (!cert.checkPrivateKey(key)) return { ok: false, reason: 'key does not match certificate' };
    const jwk = cert.publicKey.export({ format: 'jwk' });
    const hex = (b64?: string): string =>
      Buffer.from(b64 ?? '', 'base64url')
        .toString('hex')
        .toUpperCase();
    if (cert.publicKey.asymmetricKeyType === 'rsa')
      return { ok: true, type: 'RSA', publicValue: hex(jwk.n), certificatePem: `${certText}\n` };
    return { ok: true, type: 'ECC', publicValue: `04${hex(jwk.x)}${hex(jwk.y)}`, certificatePem: `${certText}\n` };
  } catch {
    return { ok: false, reason: 'unparseable certificate or key' };
  }
}
