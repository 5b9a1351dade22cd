import { PortolanError } from '@portolan/errors';
import type { SecretResolver, TlsMaterial } from '@portolan/appliance-driver';
import type { ObjectRef } from '@portolan/desired-state';
import { fromBinary, KubeEventSchema, KubeEventType } from '@portolan/proto';
import { openSealedData, type FleetKey, type SealedData } from '@portolan/secret-envelope';
import type { Database, Kysely } from '@portolan/store';
import { kindSpellings } from './pg-audit-store.ts';

/** A Secret needed for a replay is not in the archive as of that time, or cannot be opened. Never holds material. */
export class ReplaySecretError extends PortolanError {
  readonly code = 'AUDIT_REPLAY_SECRET';
}

/** The sealed box of a trimmed Secret (`sealed`), or of the watcher's envelope before trimming (`data.sealed`). */
function sealedOf(object: Record<string, unknown>): SealedData | null {
  const data = object['data'] as Record<string, unknown> | undefined;
  const box = object['sealed'] as Record<string, unknown> | undefined;
  for (const c of [box, data?.['sealed'], box?.['sealed']]) {
    if (c !== null && typeof c === 'object' && typeof (c as Record<string, unknown>)['ciphertext'] === 'string')
      return c as SealedData;
  }
  return null;
}

/**
 * Resolves a Secret as it was when a snapshot was planned: its newest archived event with seq ≤ `maxSeq`,
 * opened with the fleet key. A replay of last Tuesday pushes last Tuesday's certificate, not today's.
 */
export class AsOfSecretResolver implements SecretResolver {
  private readonly db: Kysely<Database>;
  private readonly key: FleetKey;
  private readonly maxSeq: number;

  constructor(db: Kysely<Database>, key: FleetKey, maxSeq: number) {
    this.db = db;
    this.key = key;
    this.maxSeq = maxSeq;
  }

  async resolve(secret: ObjectRef): Promise<TlsMaterial> {
    const name = `${secret.cluster}/${secret.namespace}/${secret.name}`;
    const row = await this.db
      .selectFrom('events')
      .select(['payload'])
      .where('cluster', '=', secret.cluster)
      .where('kind', 'in', kindSpellings('Secret'))
      .where('object_key', '=', `${secret.namespace}/${secret.name}`)
      .where('seq', '<=', String(this.maxSeq))
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (row === undefined)
      throw new ReplaySecretError(`Secret ${name} is not in the archive at or before seq ${this.maxSeq}`);
    const event = fromBinary(KubeEventSchema, new Uint8Array(row.payload));
    if (event.type === KubeEventType.DELETED) throw new ReplaySecretError(`Secret ${name} was deleted at that time`);
    let data: Record<string, string>;
    try {
      const sealed = sealedOf(JSON.parse(Buffer.from(event.object).toString('utf8')) as Record<string, unknown>);
      if (sealed === null) throw new ReplaySecretError(`Secret ${name} carries no sealed data`);
      data = openSealedData(this.key, sealed);
    } catch (cause) {
      if (cause instanceof ReplaySecretError) throw cause;
      throw new ReplaySecretError(`Secret ${name} cannot be opened with fleet key "${this.key.keyId}"`, { cause });
    }
    const crt = data['tls.crt'];
    const key = data['tls.key'];
    if (crt === undefined || key === undefined) throw new ReplaySecretError(`Secret ${name} lacks tls.crt or tls.key`);
    return {
      certificatePem: Buffer.from(crt, 'base64').toString('utf8'),
      privateKeyPem: Buffer.from(key, 'base64').toString('utf8'),
    };
  }
}
