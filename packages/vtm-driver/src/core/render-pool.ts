import { ownerNote } from '@portolan/appliance-driver';
import type { JsonObject, Monitor, Persistence, Pool, PoolMember } from '@portolan/desired-state';
import { deepMerge, vendorProperties } from './deep-merge.ts';
import { formatRef } from './render-virtual-server.ts';
import { vtmName } from './vtm-names.ts';
import type { VtmObject } from './vtm-objects.ts';

/** Factory monitor used when a pool names none: a plain TCP connect check (vTM's documented default). */
export const DEFAULT_MONITOR = 'Connect';

/** Renders one pool with its monitor and persistence class (both owned, named after the pool). */
export function renderPool(pool: Pool, appliance: string): VtmObject[] {
  const first = pool.services[0];
  const note = ownerNote(appliance, first === undefined ? `Pool/${pool.name}` : formatRef(first));
  const objects: VtmObject[] = [];
  const monitors = [DEFAULT_MONITOR];
  if (pool.monitor !== null) {
    const name = vtmName('monitor', pool.name);
    objects.push({ type: 'monitors', name, properties: withNote(monitorProperties(pool.monitor), note) });
    monitors[0] = name;
  }
  let persistenceClass = '';
  if (pool.persistence !== null) {
    persistenceClass = vtmName('persist', pool.name);
    objects.push({
      type: 'persistence',
      name: persistenceClass,
      properties: withNote(persistenceProperties(pool.persistence), note),
    });
  }
  const nodes = nodesTable(pool.members);
  let properties: JsonObject = {
    basic: { monitors, nodes_table: nodes, note, persistence_class: persistenceClass },
    ...(hasUnequalWeights(nodes) ? { load_balancing: { algorithm: 'weighted_round_robin' } } : {}),
    ssl: { enable: pool.tlsToBackend },
  };
  if (pool.customization !== null) properties = deepMerge(properties, vendorProperties(pool.customization));
  objects.push({ type: 'pools', name: vtmName('pool', pool.name), properties: withNote(properties, note) });
  return objects;
}

/** `nodes_table` rows: `ip:port` (IPv6 bracketed), state, weight within vTM's 1–100; one row per node. */
export function nodesTable(members: readonly PoolMember[]): JsonObject[] {
  const rows: JsonObject[] = [];
  const seen = new Set<string>();
  for (const m of members) {
    const node = m.address.includes(':') ? `[${m.address}]:${m.port}` : `${m.address}:${m.port}`;
    if (seen.has(node)) continue;
    seen.add(node);
    rows.push({ node, state: m.state, weight: Math.min(100, Math.max(1, Math.round(m.weight))) });
  }
  return rows;
}

/**
 * Whether a pool's rows carry different weights, so the pool must balance `weighted_round_robin`: vTM's default
 * `round_robin` ignores weights. Equal weights leave the algorithm unset (the appliance's default), which keeps
 * pools rendered before weighted backends existed byte for byte the same. A customization may still override it.
 */
export function hasUnequalWeights(rows: readonly JsonObject[]): boolean {
  return rows.some((r) => r['weight'] !== rows[0]?.['weight']);
}

/** Monitor properties: the annotation's vendor JSON verbatim when present, else mapped from the neutral fields. */
export function monitorProperties(monitor: Monitor): JsonObject {
  if (monitor.vendor !== null) return vendorProperties(monitor.vendor);
  const timing = { delay: monitor.intervalSeconds, failures: monitor.failures, timeout: monitor.timeoutSeconds };
  if (monitor.type === 'tcp') return { basic: { type: 'connect', ...timing } };
  return {
    basic: { type: 'http', use_ssl: monitor.type === 'https', ...timing },
    http: { host_header: monitor.hostHeader, path: monitor.path, status_regex: monitor.expectStatus },
  };
}

/** Persistence properties: vendor JSON verbatim when present; cookie → vTM `cookie`, source-ip → `ip`. */
export function persistenceProperties(persistence: Persistence): JsonObject {
  if (persistence.vendor !== null) return vendorProperties(persistence.vendor);
  return persistence.type === 'cookie'
    ? { basic: { cookie: persistence.cookie, type: 'cookie' } }
    : { basic: { type: 'ip' } };
}

function withNote(properties: JsonObject, note: string): JsonObject {
  return deepMerge(properties, { basic: { note } });
}
