import type { BackendSlots, ServerSlot, SlotState } from './haproxy-bundle.ts';
import { slotIndex, slotName } from './haproxy-names.ts';

// srv_admin_state bits (HAProxy 2.6 server-t.h): forced/inherited/resolution maintenance, forced/inherited drain.
const FORCED_MAINT = 0x01;
const INHERITED_MAINT = 0x02;
const RESOLUTION_MAINT = 0x20;
const FORCED_DRAIN = 0x08;
const INHERITED_DRAIN = 0x10;

/**
 * Parses `show servers state` (format version 1) into backends and their slots, keeping only servers named
 * like our slots (`s1`, `s2`, …), in slot order. Rows of other servers are ignored: they are not ours.
 * Columns: be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight … srv_port (19th).
 */
export function parseServersState(text: string): BackendSlots[] {
  const rows: ServersStateRows = new Map();
  for (let at = 0; at < text.length;) at = parseServersStateRows(text, at, Number.POSITIVE_INFINITY, rows);
  return serversStateBackends(rows);
}

/** Slots collected so far by backend (see `parseServersStateRows`). */
export type ServersStateRows = Map<string, { index: number; slot: ServerSlot }[]>;

/**
 * Parses at most `maxRows` lines of `show servers state` from `start` into `rows`; returns where to go on. Lets a
 * caller parse a 160k-line answer in slices and keep its event loop responsive in between.
 */
export function parseServersStateRows(text: string, start: number, maxRows: number, rows: ServersStateRows): number {
  let at = start;
  for (let n = 0; n < maxRows && at < text.length; n++) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const row = text.charCodeAt(at) === HASH ? null : parseRow(text, at, end);
    at = end + 1;
    if (row === null) continue;
    let slots = rows.get(row.backend);
    if (slots === undefined) rows.set(ownString(row.backend), (slots = []));
    slots.push({ index: row.index, slot: row.slot });
  }
  return at;
}

/** The backends of parsed rows, sorted by name, slots in slot order. */
export function serversStateBackends(rows: ServersStateRows): BackendSlots[] {
  return [...rows.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([name, slots]) => ({ name, slots: slots.sort((a, b) => a.index - b.index).map((s) => s.slot) }));
}

const HASH = 0x23;
const PORT_FIELD = 18;

/** One row, reading only the fields we need (rows run to 25 fields and there can be 100k of them). */
function parseRow(
  text: string,
  start: number,
  end: number,
): { backend: string; index: number; slot: ServerSlot } | null {
  const fields: string[] = [];
  let from = start;
  while (fields.length <= PORT_FIELD && from <= end) {
    let space = text.indexOf(' ', from);
    if (space < 0 || space > end) space = end;
    fields.push(text.slice(from, space));
    from = space + 1;
  }
  if (fields.length <= PORT_FIELD) return null;
  const [, backend = '', , server = '', address = '', , admin = '', weight = ''] = fields;
  const index = slotIndex(server);
  if (index === null) return null;
  const slot: ServerSlot = {
    name: slotName(index),
    address: ownString(address),
    port: Number(fields[PORT_FIELD]),
    state: slotState(Number(admin)),
    weight: Number(weight),
  };
  return { backend, index, slot };
}

/**
 * A copy of a field that does not point into the whole answer. V8 makes a substring of 13 characters or more (an
 * address like `10.104.123.10`) a view of its parent: one such address kept in the observed slots kept the whole
 * 15 MB answer of 10k backends alive, and two answers were held at once (backend names are such fields too).
 * `(' ' + s).slice(1)` is a view of a fresh copy of the field alone (the concatenation is flattened first).
 */
function ownString(field: string): string {
  return field.length < 13 ? field : (' ' + field).slice(1);
}

function slotState(admin: number): SlotState {
  if (admin & (FORCED_MAINT | INHERITED_MAINT | RESOLUTION_MAINT)) return 'maint';
  if (admin & (FORCED_DRAIN | INHERITED_DRAIN)) return 'drain';
  return 'ready';
}
