import { bool, int, list, oneOf, str, table, useDefault, type ResourceSchema } from './field-spec.ts';

const protocols = [
  'client_first', 'dns', 'dns_tcp', 'ftp', 'http', 'https', 'imaps', 'imapv2', 'imapv3', 'imapv4', 'ldap', 'ldaps',
  'pop3', 'pop3s', 'rtsp', 'server_first', 'siptcp', 'sipudp', 'smtp', 'ssl', 'stream', 'telnet', 'udp', 'udpstreaming',
];

/** `virtual_servers` (API 8.3): a create must name `basic.pool` and `basic.port`; `enabled` defaults to false. */
export const virtualServersSchema: ResourceSchema = {
  sections: {
    basic: {
      add_cluster_ip: bool(true),
      add_x_forwarded_for: bool(false),
      add_x_forwarded_proto: bool(false),
      bandwidth_class: str(),
      close_with_rst: bool(false),
      completion_rules: list('rules'),
      connect_timeout: int(10),
      enabled: bool(false),
      listen_on_any: bool(true),
      listen_on_hosts: list(),
      listen_on_traffic_ips: list('traffic_ip_groups'),
      max_concurrent_connections: int(0),
      note: str(),
      pool: str('', 'pools'),
      port: int(80, 1, 65535),
      protection_class: str(),
      protocol: oneOf('http', protocols),
      proxy_protocol: bool(false),
      request_rules: list('rules'),
      response_rules: list('rules'),
      rules_on_connect: bool(false),
      slm_class: str(),
      ssl_decrypt: bool(false),
      transparent: bool(false),
    },
    connection: { keepalive: bool(true), keepalive_timeout: int(10), max_client_buffer: int(65536), timeout: int(300) },
    http: {
      add_x_forwarded_for: bool(false),
      add_x_forwarded_proto: bool(false),
      chunk_overhead_forwarding: oneOf('lazy', ['eager', 'lazy']),
      location_rewrite: oneOf('if_host_matches', ['always', 'if_host_matches', 'never']),
    },
    http2: { enabled: bool(true) },
    log: { enabled: bool(false), filename: str('%zeushome%/zxtm/log/%v.log') },
    ssl: {
      add_http_headers: bool(false),
      request_client_cert: oneOf('dont_request', ['dont_request', 'request', 'require']),
      server_cert_alt_certificates: list('ssl/server_keys'),
      server_cert_default: str('', 'ssl/server_keys'),
      server_cert_host_mapping: table('host', {
        alt_certificates: list('ssl/server_keys'),
        certificate: str('', 'ssl/server_keys'),
        host: str(),
      }),
      support_tls1: oneOf('use_default', useDefault),
      support_tls1_1: oneOf('use_default', useDefault),
      support_tls1_2: oneOf('use_default', useDefault),
      support_tls1_3: oneOf('use_default', useDefault),
    },
    web_cache: { enabled: bool(false), max_time: int(600) },
  },
  requiredOnCreate: [
    ['basic', 'pool'],
    ['basic', 'port'],
  ],
  hashedOnRead: [],
};
