import type { ResourceSchema } from './field-spec.ts';
import { poolsSchema } from './pools.ts';
import {
  monitorsSchema,
  persistenceSchema,
  serverKeysSchema,
  trafficIpGroupsSchema,
  trafficManagersSchema,
} from './small-types.ts';
import { virtualServersSchema } from './virtual-servers.ts';

export type { FieldSpec, ResourceSchema } from './field-spec.ts';

/** JSON resource types the emulator serves, by their path under `config/active/`. */
export const jsonSchemas: Readonly<Record<string, ResourceSchema>> = {
  monitors: monitorsSchema,
  persistence: persistenceSchema,
  pools: poolsSchema,
  'ssl/server_keys': serverKeysSchema,
  traffic_ip_groups: trafficIpGroupsSchema,
  traffic_managers: trafficManagersSchema,
  virtual_servers: virtualServersSchema,
};

/** Text resource types (raw bodies, `application/octet-stream`). */
export const textTypes: readonly string[] = ['rules', 'ssl/cas'];

/** Every resource type path, sorted. */
export const allTypes: readonly string[] = [...Object.keys(jsonSchemas), ...textTypes].sort();
