import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { FleetKey } from './fleet-key.ts';
import { PortolanError } from '@portolan/errors';

/** Secret data sealed with AES-256-GCM: safe to publish and store. */
export interface SealedData {
  readonly keyId: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
}

/** What replaces a Secret's `data` on the bus: the sealed map and a keyed fingerprint of it. */
export interface SealedSecretData {
  readonly sealed: SealedData;
  /** HMAC-SHA256 over the canonical data map: equal exactly when the material is equal, deterministic for hashing. */
  readonly fingerprint: string;
}

/** Sealed data that cannot be opened: wrong key id, tampered ciphertext. Never includes the material. */
export class SealError extends PortolanError {
  readonly code = 'SECRET_UNSEAL_FAILED';
}

/** Canonical bytes of a data map: keys sorted, values as given (base64 strings as in the Secret). */
function canonical(data: Readonly<Record<string, string>>): Buffer {
  const keys = Object.keys(data).sort();
  return Buffer.from(JSON.stringify(keys.map((k) => [k, data[k]])));
}

/** Keyed fingerprint of a Secret's data map. */
export function fingerprintSecretData(key: FleetKey, data: Readonly<Record<string, string>>): string {
  return createHmac('sha256', key.fingerprintKey).update(canonical(data)).digest('hex');
}

/** Seals a Secret's `data` map (values base64 as in Kubernetes). */
export function sealSecretData(key: FleetKey, data: Readonly<Record<string, string>>): SealedSecretData {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.sealKey, iv);
  cipher.setAAD(Buffer.from(key.keyId));
  const ciphertext = Buffer.concat([cipher.update(canonical(data)), cipher.final()]);
  return {
    sealed: {
      keyId: key.keyId,
      iv: iv.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
    },
    fingerprint: fingerprintSecretData(key, data),
  };
}

/** Opens sealed data; throws SealError for a foreign key id or tampering. */
export function openSealedData(key: FleetKey, sealed: SealedData): Record<string, string> {
  if (sealed.keyId !== key.keyId)
    throw new SealError(`sealed with key "${sealed.keyId}", this process holds "${key.keyId}"`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.sealKey, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(key.keyId));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
    return Object.fromEntries(JSON.parse(plain.toString('utf8')) as [string, string][]);
  } catch (cause) {
    throw new SealError('sealed secret data failed authentication (tampered or wrong key)', { cause });
  }
}
