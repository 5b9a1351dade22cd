import type { Properties } from './validate-properties.ts';

/** Built-in objects every Traffic Manager ships with; they can be read and used but not deleted. */
export const factoryObjects: readonly {
  readonly type: string;
  readonly name: string;
  readonly properties: Properties;
}[] = [
  { type: 'pools', name: 'discard', properties: { basic: { note: 'Built-in pool that discards all traffic' } } },
  monitor('Connect', { type: 'connect' }),
  monitor('Ping', { type: 'ping' }),
  monitor('Simple HTTP', { type: 'http' }),
  monitor('Simple HTTPS', { type: 'http', use_ssl: true }),
  monitor('Full HTTP', { type: 'http' }, { status_regex: '^[234][0-9][0-9]$' }),
  monitor('Full HTTPS', { type: 'http', use_ssl: true }, { status_regex: '^[234][0-9][0-9]$' }),
];

function monitor(
  name: string,
  basic: Properties[string],
  http: Properties[string] = {},
): (typeof factoryObjects)[number] {
  return { type: 'monitors', name, properties: { basic: { ...basic, factory: true }, http } };
}
