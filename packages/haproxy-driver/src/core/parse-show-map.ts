import type { MapEntry } from './haproxy-bundle.ts';
import { sortEntries } from './routing-maps.ts';

/** One map HAProxy has loaded, as `show map` lists it. */
export interface LoadedMap {
  readonly id: number;
  /** The file the map was loaded from (absolute, as written in haproxy.cfg). */
  readonly file: string;
}

/** Parses the `show map` listing: `<id> (<file>) pattern loaded from file … entry_cnt=<n>` lines. */
export function parseMapList(text: string): LoadedMap[] {
  const maps: LoadedMap[] = [];
  for (const line of text.split('\n')) {
    const match = /^(\d+) \(([^)]*)\)/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) maps.push({ id: Number(match[1]), file: match[2] });
  }
  return maps;
}

/** Parses `show map <file>` rows (`<ref> <key> <value>`) into entries sorted by key. */
export function parseMapEntries(text: string): MapEntry[] {
  const entries: MapEntry[] = [];
  for (const line of text.split('\n')) {
    const match = /^(0x[0-9a-f]+) (\S+) (.*)$/.exec(line);
    if (match?.[2] !== undefined && match[3] !== undefined) entries.push([match[2], match[3]]);
  }
  return sortEntries(entries);
}
