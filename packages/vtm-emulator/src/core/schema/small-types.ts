import { bool, int, list, oneOf, str, table, type ResourceSchema } from './field-spec.ts';

/** `traffic_ip_groups`: machines must name traffic managers of this cluster (checked even outside strict mode). */
export const trafficIpGroupsSchema: ResourceSchema = {
  sections: {
    basic: {
      enabled: bool(true),
      hash_source_port: bool(false),
      ip_assignment_mode: oneOf('balanced', ['alphabetic', 'balanced']),
      ip_mapping: table('ip', { ip: str(), traffic_manager: str('', 'traffic_managers', true) }),
      ipaddresses: list(),
      keeptogether: bool(false),
      location: int(0),
      machines: list('traffic_managers', true),
      mode: oneOf('singlehosted', [
        'ec2elastic',
        'ec2vpcelastic',
        'ec2vpcprivate',
        'gceexternal',
        'multihosted',
        'rhi',
        'singlehosted',
      ]),
      multicast: str(),
      note: str(),
      rhi_ospfv2_metric_base: int(10, 1, 65535),
      slaves: list('traffic_managers', true),
    },
  },
  requiredOnCreate: [],
  hashedOnRead: [],
};

/** `ssl/server_keys`: `private` is stored but only ever shown as its base64 SHA-256. */
export const serverKeysSchema: ResourceSchema = {
  sections: { basic: { note: str(), private: str(), public: str(), request: str() } },
  requiredOnCreate: [],
  hashedOnRead: [['basic', 'private']],
};

/** `monitors`: factory monitors are seeded with `basic.factory` true. */
export const monitorsSchema: ResourceSchema = {
  sections: {
    basic: {
      back_off: bool(true),
      delay: int(3, 1, 999990),
      factory: bool(false),
      failures: int(3, 1, 100000),
      machine: str(),
      note: str(),
      scope: oneOf('pernode', ['pernode', 'poolwide']),
      timeout: int(3, 1, 99999),
      type: oneOf('ping', ['connect', 'http', 'ping', 'program', 'rtsp', 'sip', 'tcp_transaction']),
      use_ssl: bool(false),
      verbose: bool(false),
    },
    http: {
      authentication: str(),
      body_regex: str(),
      host_header: str(),
      path: str('/'),
      status_regex: str('^[234][0-9][0-9]$'),
    },
    tcp: { close_string: str(), max_response_len: int(2048), response_regex: str('.+'), write_string: str() },
  },
  requiredOnCreate: [],
  hashedOnRead: [],
};

/** `persistence`: session persistence classes. */
export const persistenceSchema: ResourceSchema = {
  sections: {
    basic: {
      cookie: str(),
      delete: bool(true),
      failure_mode: oneOf('new_node', ['close', 'new_node', 'url']),
      note: str(),
      subnet_prefix_length_v4: int(0, 0, 32),
      subnet_prefix_length_v6: int(0, 0, 128),
      transparent_always_set_cookie: bool(false),
      transparent_directives: str(),
      type: oneOf('ip', ['asp', 'cookie', 'ip', 'j2ee', 'named', 'ssl', 'transparent', 'universal', 'x_zeus']),
      url: str(),
    },
  },
  requiredOnCreate: [],
  hashedOnRead: [],
};

/** `traffic_managers`: the cluster's machines, seeded from the emulator options. */
export const trafficManagersSchema: ResourceSchema = {
  sections: {
    basic: {
      adminMasterXMLIP: str('0.0.0.0'),
      adminSlaveXMLIP: str('0.0.0.0'),
      location: str(),
      nameip: str(),
      note: str(),
      num_children: int(0),
      numberOfCPUs: int(0),
      restServerPort: int(11003, 1, 65535),
      trafficip: table('name', { name: str(), networks: list() }),
    },
  },
  requiredOnCreate: [],
  hashedOnRead: [],
};
