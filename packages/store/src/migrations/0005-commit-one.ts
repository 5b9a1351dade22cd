import { sql, type Kysely } from 'kysely';

/**
 * `portolan_commit_one`: the planner's usual commit (a batch of events extending one appliance's chain by one
 * snapshot) as one function call, so it is one round trip in autocommit instead of four (a pin read, BEGIN, the
 * writes, COMMIT). The position and head compare-and-sets, the event and piece inserts, the rollback pin read and
 * the snapshot insert run in the call's own transaction; a failed compare-and-set raises SQLSTATE PH409 and
 * nothing is written. Snapshots made while an operator's rollback pin exists are recorded held, with the reason
 * `portolan resume` recognises (`pinHoldReason`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION portolan_commit_one(
      p_consumer text, p_from bigint, p_to bigint,
      e_seq bigint[], e_subject text[], e_msg_id text[], e_cluster text[], e_kind text[], e_object_key text[],
      e_event_type text[], e_payload bytea[], e_received_at timestamptz[], e_trace_id text[],
      p_hash text[], p_body bytea[],
      s_appliance text, s_content_hash text, s_root_hash text, s_parent_id bigint, s_last_event_seq bigint,
      s_fleet_config_hash text, s_planner_version text, s_trace_id text
    ) RETURNS TABLE (new_id bigint, is_held boolean, held_because text)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_pin bigint;
      v_reason text;
      v_id bigint;
    BEGIN
      UPDATE consumer_positions SET stream_seq = p_to, updated_at = now() WHERE consumer = p_consumer AND stream_seq = p_from;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'consumer % is no longer at %', p_consumer, p_from USING ERRCODE = 'PH409';
      END IF;
      INSERT INTO events (seq, subject, msg_id, cluster, kind, object_key, event_type, payload, received_at, trace_id)
        SELECT * FROM unnest(e_seq, e_subject, e_msg_id, e_cluster, e_kind, e_object_key, e_event_type, e_payload, e_received_at, e_trace_id)
        ON CONFLICT (seq) DO NOTHING;
      INSERT INTO snapshot_pieces (hash, body) SELECT * FROM unnest(p_hash, p_body) ON CONFLICT (hash) DO NOTHING;
      SELECT pin.snapshot_id INTO v_pin FROM snapshot_pins pin WHERE pin.appliance = s_appliance;
      v_reason := CASE WHEN v_pin IS NULL THEN NULL ELSE 'pinned by rollback to snapshot ' || v_pin END;
      INSERT INTO snapshots (appliance, content_hash, root_hash, parent_id, last_event_seq, fleet_config_hash, planner_version, held, hold_reason, origin, trace_id)
        VALUES (s_appliance, s_content_hash, s_root_hash, s_parent_id, s_last_event_seq, s_fleet_config_hash, s_planner_version, v_pin IS NOT NULL, v_reason, 'plan', s_trace_id)
        ON CONFLICT DO NOTHING
        RETURNING id INTO v_id;
      IF v_id IS NULL THEN
        RAISE EXCEPTION '%: snapshot % already has a child', s_appliance, s_parent_id USING ERRCODE = 'PH409';
      END IF;
      UPDATE snapshot_heads SET snapshot_id = v_id, content_hash = s_content_hash, updated_at = now()
        WHERE appliance = s_appliance AND snapshot_id = s_parent_id;
      IF NOT FOUND THEN
        RAISE EXCEPTION '%: head moved away from %', s_appliance, s_parent_id USING ERRCODE = 'PH409';
      END IF;
      RETURN QUERY SELECT v_id, v_pin IS NOT NULL, v_reason;
    END
    $fn$
  `.execute(db);
}
