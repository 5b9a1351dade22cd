import { hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PortolanError } from '@portolan/errors';

/** The fleet's secret key: one 32-byte key file, from which the sealing and fingerprint keys are derived. */
export interface FleetKey {
  readonly keyId: string;
  /** AES-256-GCM key for sealing Secret data. */
  readonly sealKey: Buffer;
  /** HMAC-SHA256 key for fingerprints (separate, so a fingerprint reveals nothing about the sealing key). */
  readonly fingerprintKey: Buffer;
}

/** A key file that is missing or not 32 bytes of hex or base64. Never includes the key material. */
export class FleetKeyError extends PortolanError {
  readonly code = 'FLEET_KEY_INVALID';
}

/** Derives the fleet key from 32 raw bytes. */
export function fleetKeyFromBytes(raw: Uint8Array, keyId: string): FleetKey {
  if (raw.length !== 32) throw new FleetKeyError(`fleet key "${keyId}" must be 32 bytes, got ${raw.length}`);
  const derive = (info: string): Buffer => Buffer.from(hkdfSync('sha256', raw, Buffer.alloc(0), info, 32));
  return { keyId, sealKey: derive('portolan seal v1'), fingerprintKey: derive('portolan fingerprint v1') };
}

/** Reads a key file holding 32 bytes as 64 hex characters or base64. */
export function loadFleetKey(file: string, keyId: string): FleetKey {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (cause) {
    throw new FleetKeyError(`cannot read fleet key file ${file}`, { cause });
  }
  const raw = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  return fleetKeyFromBytes(raw, keyId);
}
