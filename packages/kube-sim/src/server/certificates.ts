import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { bitString, boolean, contextTag, integer, octetString, oid, sequence, set, time, utf8String } from './der.ts';

/** A certificate with its private key, both PEM. */
export interface PemKeyPair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** A generated CA: its PEM material plus what issuing leaf certificates needs. */
export interface CertificateAuthority extends PemKeyPair {
  readonly name: Buffer;
  readonly privateKey: KeyObject;
  readonly keyId: Buffer;
}

const day = 24 * 60 * 60 * 1000;
const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));

function distinguishedName(commonName: string): Buffer {
  return sequence(set(sequence(oid('2.5.4.3'), utf8String(commonName))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(oid(id), boolean(true), octetString(value)) : sequence(oid(id), octetString(value));
}

/** KeyUsage bits (bit 0 = digitalSignature) as a minimal DER BIT STRING. */
function keyUsage(bits: readonly number[]): Buffer {
  let value = 0;
  for (const bit of bits) value |= 0x80 >> bit;
  const unused = Math.min(...bits.map((b) => 7 - b));
  return bitString(Buffer.from([value]), unused);
}

function spkiOf(key: KeyObject): { spki: Buffer; keyId: Buffer } {
  const spki = (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' });
  return { spki, keyId: createHash('sha1').update(spki).digest() };
}

function pem(label: string, derBytes: Buffer): string {
  return `-----BEGIN ${label}-----\n${(derBytes.toString('base64').match(/.{1,64}/g) ?? []).join('\n')}\n-----END ${label}-----\n`;
}

interface CertificateSpec {
  readonly subject: Buffer;
  readonly issuer: Buffer;
  readonly publicKey: KeyObject;
  readonly signingKey: KeyObject;
  readonly validDays: number;
  readonly extensions: readonly Buffer[];
}

function signCertificate(spec: CertificateSpec): Buffer {
  const now = Date.now();
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = sequence(
    contextTag(0, true, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    spec.issuer,
    sequence(time(new Date(now - day)), time(new Date(now + spec.validDays * day))),
    spec.subject,
    spkiOf(spec.publicKey).spki,
    contextTag(3, true, sequence(...spec.extensions)),
  );
  return sequence(tbs, ecdsaWithSha256, bitString(sign('sha256', tbs, spec.signingKey)));
}

function newKeyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

function privateKeyPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** Generates a self-signed ECDSA P-256 CA valid for ten years (new at every simulator start; no openssl needed). */
export function createCertificateAuthority(commonName = 'portolan-kube-sim-ca'): CertificateAuthority {
  const { publicKey, privateKey } = newKeyPair();
  const name = distinguishedName(commonName);
  const { keyId } = spkiOf(publicKey);
  const cert = signCertificate({
    subject: name,
    issuer: name,
    publicKey,
    signingKey: privateKey,
    validDays: 3650,
    extensions: [
      extension('2.5.29.15', true, keyUsage([0, 5, 6])),
      extension('2.5.29.19', true, sequence(boolean(true))),
      extension('2.5.29.14', false, octetString(keyId)),
    ],
  });
  return { certPem: pem('CERTIFICATE', cert), keyPem: privateKeyPem(privateKey), name, privateKey, keyId };
}

function ipBytes(ip: string): Buffer {
  return Buffer.from(ip.split('.').map(Number));
}

/** Issues a TLS server certificate signed by the CA for the given DNS names and IPv4 addresses. */
export function issueServerCertificate(
  ca: CertificateAuthority,
  names: { dns: readonly string[]; ips: readonly string[] },
  commonName = names.dns[0] ?? 'kube-apiserver',
): PemKeyPair {
  const { publicKey, privateKey } = newKeyPair();
  const san = sequence(
    ...names.dns.map((d) => contextTag(2, false, Buffer.from(d, 'ascii'))),
    ...names.ips.map((ip) => contextTag(7, false, ipBytes(ip))),
  );
  const cert = signCertificate({
    subject: distinguishedName(commonName),
    issuer: ca.name,
    publicKey,
    signingKey: ca.privateKey,
    validDays: 365,
    extensions: [
      extension('2.5.29.15', true, keyUsage([0, 2])),
      extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))),
      extension('2.5.29.19', true, sequence()),
      extension('2.5.29.17', false, san),
      extension('2.5.29.35', false, sequence(contextTag(0, false, ca.keyId))),
    ],
  });
  return { certPem: pem('CERTIFICATE', cert), keyPem: privateKeyPem(privateKey) };
}
