import type { Kysely } from 'kysely';

/**
 * `applies.operations_hash`: the root of a value tree (in `snapshot_pieces`, like the read-back's) holding an apply's
 * operations with their payloads. `applies.operations` then keeps one header per operation (type, name, action,
 * summary), so a row stays small whatever the push: a HAProxy reload at 10k backends carried about 24 MB of JSON in
 * that column (the whole haproxy.cfg and every server slot), written again with every structural change. In the
 * tree, haproxy.cfg is stored as its sections and shares them with the read-back. Rows written before this
 * migration have no hash and keep their payloads in `operations`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('applies').addColumn('operations_hash', 'text').execute();
}
