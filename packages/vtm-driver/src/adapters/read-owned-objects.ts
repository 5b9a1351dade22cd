import { parseOwnerNote } from '@portolan/appliance-driver';
import type { JsonObject } from '@portolan/desired-state';
import { sortObjects } from '../core/render-vtm.ts';
import { ruleOwnerComment } from '../core/traffic-script.ts';
import { NAME_PREFIX } from '../core/vtm-names.ts';
import { writeOrder, type VtmObject, type VtmObjects } from '../core/vtm-objects.ts';
import { VtmTransportError, type VtmRestClient } from './vtm-rest-client.ts';

/**
 * Reads back every object this appliance's driver owns: lists each type, reads the objects whose names carry
 * our prefix, and keeps only those whose note (rules: first comment line) names this appliance. Objects
 * anybody else made are never returned, so diff can never change or delete them. `groupAddresses`, when given,
 * receives the `ipaddresses` of every traffic IP group read (ours or not) by group name.
 */
export async function readOwnedObjects(
  client: VtmRestClient,
  appliance: string,
  signal: AbortSignal,
  groupAddresses?: Map<string, readonly string[]>,
): Promise<VtmObjects> {
  const targets: { type: VtmObject['type']; name: string }[] = [];
  for (const type of writeOrder) {
    // Every traffic IP group is read (there are few): shared addresses reuse groups that are not ours.
    for (const name of await client.listNames(type, signal))
      if (name.startsWith(NAME_PREFIX) || type === 'traffic_ip_groups') targets.push({ type, name });
  }
  const read = await mapLimit(targets, 8, async ({ type, name }) => {
    const reply = await client.get(type, name, signal);
    if (reply.status === 404) return null; // deleted between list and read
    if (reply.status !== 200)
      throw new VtmTransportError(`reading ${type}/${name} answered ${reply.status}`, { cause: reply.json });
    return { type, name, json: reply.json, owned: toOwnedObject(type, name, reply.text, reply.json, appliance) };
  });
  const objects: VtmObject[] = [];
  const foreign: string[] = [];
  const externalTrafficIps: Record<string, string> = {};
  for (const r of read) {
    if (r === null) continue;
    if (r.owned !== null) objects.push(r.owned);
    else if (r.name.startsWith(NAME_PREFIX)) foreign.push(`${r.type}/${r.name}`);
    if (r.type !== 'traffic_ip_groups') continue;
    const ips = ipAddressesOf(r.json);
    groupAddresses?.set(r.name, ips);
    if (r.owned === null) for (const ip of ips) externalTrafficIps[ip] ??= r.name;
  }
  return { objects: sortObjects(objects), conditions: [], foreign, externalTrafficIps };
}

/** The addresses a traffic IP group's JSON lists under `basic.ipaddresses` (strings only). */
function ipAddressesOf(json: unknown): string[] {
  const ips = (json as { properties?: { basic?: { ipaddresses?: unknown } } } | null)?.properties?.basic?.ipaddresses;
  return Array.isArray(ips) ? ips.filter((ip): ip is string => typeof ip === 'string') : [];
}

function toOwnedObject(
  type: VtmObject['type'],
  name: string,
  text: string,
  json: unknown,
  appliance: string,
): VtmObject | null {
  if (type === 'rules') {
    const comment = ruleOwnerComment(text);
    return comment !== null && parseOwnerNote(comment)?.appliance === appliance ? { type, name, text } : null;
  }
  const properties = (json as { properties?: JsonObject } | null)?.properties;
  const basic = properties?.['basic'];
  const note =
    typeof basic === 'object' && basic !== null && !Array.isArray(basic) ? (basic as JsonObject)['note'] : undefined;
  if (properties === undefined || typeof note !== 'string' || parseOwnerNote(note)?.appliance !== appliance)
    return null;
  return { type, name, properties };
}

/** Maps with at most `limit` calls in flight, keeping input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
