import type { SecretResolver, TlsMaterial } from '@portolan/appliance-driver';
import type { ObjectRef } from '@portolan/desired-state';
import { fromBinary, KubeEventSchema, KubeEventType } from '@portolan/proto';
import { openSealedData, type FleetKey, type SealedData } from '@portolan/secret-envelope';
import type { Database, Kysely } from '@portolan/store';
import { SecretResolveError } from '../errors.ts';

// How the archive may spell the Secret kind (planner shell's choice): match all of them on the index.
const SECRET_KINDS = ['Secret', 'secret', 'KUBE_KIND_SECRET'];

/** Finds the sealed data map in a trimmed Secret: `data.sealed` (or a top-level `sealed`) holding SealedData. */
function sealedOf(object: Record<string, unknown>): SealedData | null {
  const candidates = [
    (object['data'] as Record<string, unknown> | undefined)?.['sealed'],
    (object['sealed'] as Record<string, unknown> | undefined)?.['sealed'],
    object['sealed'],
  ];
  for (const c of candidates) {
    if (c !== null && typeof c === 'object' && typeof (c as Record<string, unknown>)['ciphertext'] === 'string')
      return c as SealedData;
  }
  return null;
}

/**
 * Resolves a Secret reference to PEM material: the newest archived KubeEvent of that Secret (events table,
 * protobuf payload), its sealed data opened with the fleet key, `tls.crt` / `tls.key` base64-decoded. The
 * material lives only in the returned object; errors name the Secret, never its content.
 */
export class ArchivedSecretResolver implements SecretResolver {
  private readonly db: Kysely<Database>;
  private readonly key: FleetKey;

  constructor(db: Kysely<Database>, key: FleetKey) {
    this.db = db;
    this.key = key;
  }

  async resolve(secret: ObjectRef): Promise<TlsMaterial> {
    const name = `${secret.cluster}/${secret.namespace}/${secret.name}`;
    const row = await this.db
      .selectFrom('events')
      .select(['payload', 'event_type'])
      .where('cluster', '=', secret.cluster)
      .where('kind', 'in', SECRET_KINDS)
      .where('object_key', '=', `${secret.namespace}/${secret.name}`)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (row === undefined) throw new SecretResolveError(`Secret ${name} is not in the event archive`);
    const event = fromBinary(KubeEventSchema, new Uint8Array(row.payload));
    if (event.type === KubeEventType.DELETED || row.event_type === 'DELETED')
      throw new SecretResolveError(`Secret ${name} was deleted`);
    let object: Record<string, unknown>;
    try {
      object = JSON.parse(Buffer.from(event.object).toString('utf8')) as Record<string, unknown>;
    } catch (cause) {
      throw new SecretResolveError(`Secret ${name}: archived object is not JSON`, { cause });
    }
    const sealed = sealedOf(object);
    if (sealed === null) throw new SecretResolveError(`Secret ${name} carries no sealed data`);
    let data: Record<string, string>;
    try {
      data = openSealedData(this.key, sealed);
    } catch (cause) {
      throw new SecretResolveError(`Secret ${name} cannot be opened with fleet key "${this.key.keyId}"`, { cause });
    }
    const crt = data['tls.crt'];
    const key = data['tls.key'];
    if (crt === undefined || key === undefined) throw new SecretResolveError(`Secret ${name} lacks tls.crt or tls.key`);
    return {
      certificatePem: Buffer.from(crt, 'base64').toString('utf8'),
      privateKeyPem: Buffer.from(key, 'base64').toString('utf8'),
    };
  }
}
