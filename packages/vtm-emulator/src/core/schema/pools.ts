import { bool, int, list, oneOf, str, table, type ResourceSchema } from './field-spec.ts';

/** `pools` (API 8.3): nodes_table rows keyed by `node`, monitors and persistence by name. */
export const poolsSchema: ResourceSchema = {
  sections: {
    basic: {
      bandwidth_class: str(),
      failure_pool: str('', 'pools'),
      max_connection_attempts: int(0),
      max_idle_connections_pernode: int(50),
      max_timed_out_connection_attempts: int(2),
      monitors: list('monitors'),
      node_close_with_rst: bool(false),
      node_connection_attempts: int(3),
      node_delete_behavior: oneOf('immediate', ['drain', 'immediate']),
      node_drain_to_delete_timeout: int(0),
      nodes_table: table('node', {
        node: str(),
        priority: int(1),
        source_ip: str(),
        state: oneOf('active', ['active', 'disabled', 'draining']),
        weight: int(1, 1, 100),
      }),
      note: str(),
      passive_monitoring: bool(true),
      persistence_class: str('', 'persistence'),
      transparent: bool(false),
    },
    connection: {
      max_connect_time: int(4),
      max_connections_per_node: int(0),
      max_queue_size: int(0),
      max_reply_time: int(30),
      queue_timeout: int(10),
    },
    http: { keepalive: bool(true), keepalive_non_idempotent: bool(false) },
    load_balancing: {
      algorithm: oneOf('round_robin', [
        'fastest_response_time', 'least_connections', 'perceptive', 'random', 'round_robin',
        'weighted_least_connections', 'weighted_round_robin',
      ]),
      priority_enabled: bool(false),
      priority_nodes: int(1),
    },
    node: { close_on_death: bool(false), retry_fail_time: int(60) },
    ssl: {
      client_auth: bool(false),
      enable: bool(false),
      enhance: bool(false),
      send_close_alerts: bool(true),
      server_name: bool(false),
      strict_verify: bool(false),
    },
    tcp: { nagle: bool(true) },
    service_discovery: {
      enabled: bool(false),
      interval: int(10),
      plugin: str(),
      plugin_args: str(),
      timeout: int(0),
    },
  },
  requiredOnCreate: [],
  hashedOnRead: [],
};
