import type { BackendSlots, ServerSlot, SlotState } from './haproxy-bundle.ts';
import { slotIndex } from './haproxy-names.ts';

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
  const byBackend = new Map<string, { index: number; slot: ServerSlot }[]>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(' ');
    if (fields.length < 19) continue;
    const [, backend, , server, address, , admin, weight] = fields;
    const index = slotIndex(server ?? '');
    if (backend === undefined || index === null || address === undefined) continue;
    const slot: ServerSlot = {
      name: server ?? '',
      address,
      port: Number(fields[18]),
      state: slotState(Number(admin)),
      weight: Number(weight),
    };
    const slots = byBackend.get(backend) ?? [];
    slots.push({ index, slot });
    byBackend.set(backend, slots);
  }
  return [...byBackend.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([name, slots]) => ({ name, slots: slots.sort((a, b) => a.index - b.index).map((s) => s.slot) }));
}

function slotState(admin: number): SlotState {
  if (admin & (FORCED_MAINT | INHERITED_MAINT | RESOLUTION_MAINT)) return 'maint';
  if (admin & (FORCED_DRAIN | INHERITED_DRAIN)) return 'drain';
  return 'ready';
}
