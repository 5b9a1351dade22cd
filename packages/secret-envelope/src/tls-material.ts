import { createPrivateKey, X509Certificate } from 'node:crypto';

/**
 * What can be said in clear about a Secret's TLS material, read by the watcher before it seals the data: whether
 * the certificate parses, the key parses and matches it, the names it covers and when it expires. No key material,
 * no certificate bytes: the planner refuses unusable material on the Ingress that names it, so nothing an
 * appliance would refuse (and, on HAProxy, refuse the whole configuration over) ever reaches one.
 */
export type TlsMaterial =
  | {
      readonly ok: true;
      /** DNS names of the subject alternative names (or the common name when there are none), at most 100. */
      readonly names: readonly string[];
      readonly notBefore: string;
      readonly notAfter: string;
      /** Whether it had expired (or was not yet valid) when the watcher read it. */
      readonly expiredWhenRead: boolean;
    }
  | { readonly ok: false; readonly reason: string };

const MAX_NAMES = 100;

/** Inspects `tls.crt` and `tls.key` (base64, as in a Secret's data); undefined when the data carries neither. */
export function inspectTlsData(data: Readonly<Record<string, string>>, nowMs: number): TlsMaterial | undefined {
  const crt = data['tls.crt'];
  const key = data['tls.key'];
  if (crt === undefined && key === undefined) return undefined;
  if (crt === undefined || crt === '') return { ok: false, reason: 'tls.crt is missing or empty' };
  if (key === undefined || key === '') return { ok: false, reason: 'tls.key is missing or empty' };
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Buffer.from(crt, 'base64'));
  } catch {
    return { ok: false, reason: 'tls.crt is not a PEM or DER X.509 certificate' };
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(Buffer.from(key, 'base64'));
  } catch {
    return { ok: false, reason: 'tls.key is not a private key (unencrypted PEM or DER)' };
  }
  let matches = false;
  try {
    matches = cert.checkPrivateKey(privateKey);
  } catch {
    matches = false;
  }
  if (!matches) return { ok: false, reason: 'tls.key does not match the certificate in tls.crt' };
  const names = dnsNames(cert).slice(0, MAX_NAMES);
  const notBefore = new Date(cert.validFrom).toISOString();
  const notAfter = new Date(cert.validTo).toISOString();
  const expiredWhenRead = nowMs > Date.parse(notAfter) || nowMs < Date.parse(notBefore);
  return { ok: true, names, notBefore, notAfter, expiredWhenRead };
}

/** The certificate's DNS subject alternative names, lower case; its common name when it has none. */
function dnsNames(cert: X509Certificate): string[] {
  const san = cert.subjectAltName;
  if (san !== undefined && san !== '') {
    return san
      .split(', ')
      .filter((n) => n.startsWith('DNS:'))
      .map((n) => n.slice(4).toLowerCase());
  }
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];
  return cn === undefined ? [] : [cn.toLowerCase()];
}
