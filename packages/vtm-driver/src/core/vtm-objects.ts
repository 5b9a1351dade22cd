import type { JsonObject, ObjectCondition, ObjectRef } from '@portolan/desired-state';

/** vTM configuration types the driver writes, by their path under `config/active/`. */
export type VtmJsonType =
  'traffic_ip_groups' | 'virtual_servers' | 'pools' | 'ssl/server_keys' | 'monitors' | 'persistence';
/** Every type the driver owns objects of (rules are raw TrafficScript). */
export type VtmObjectType = VtmJsonType | 'rules';

/** A JSON configuration object: its `properties` (section → key → value). */
export interface VtmJsonObject {
  readonly type: VtmJsonType;
  readonly name: string;
  readonly properties: JsonObject;
  /** SSL server keys only: the Secret whose certificate and key are pushed at execute time (never the material). */
  readonly secret?: ObjectRef;
  /** Traffic IP groups of shared addresses only: an existing group holding this IP is used instead (vTM's documented rule). */
  readonly adoptableIp?: string;
}

/** A TrafficScript rule; ownership is its leading comment line. */
export interface VtmRuleObject {
  readonly type: 'rules';
  readonly name: string;
  readonly text: string;
}

/** One object the driver owns. */
export type VtmObject = VtmJsonObject | VtmRuleObject;

/** The driver's vendor model: owned objects sorted by (type, name), plus conditions found while rendering. */
export interface VtmObjects {
  readonly objects: readonly VtmObject[];
  readonly conditions: readonly ObjectCondition[];
  /**
   * Read-back only: `type/name` of objects whose names look like ours but whose note is not ours (made by hand or
   * by another appliance's driver). Diff never writes or deletes them.
   */
  readonly foreign?: readonly string[];
  /** Read-back only: IP → name of traffic IP groups that are not ours (shared addresses reuse them). */
  readonly externalTrafficIps?: Readonly<Record<string, string>>;
}

/**
 * Write order: children before the objects that name them; deletes run in reverse.
 */
export const writeOrder: readonly VtmObjectType[] = [
  'rules',
  'monitors',
  'persistence',
  'ssl/server_keys',
  'pools',
  'traffic_ip_groups',
  'virtual_servers',
];
