// Where a 10k appliance's memory goes, structure by structure: `node --expose-gc bench/support/memory-breakdown.ts
// [services]` builds the planner's state for a synthetic world (the `pipeline` benchmark's), then the structures the
// leading HAProxy applier holds for it, and prints the live V8 heap each one adds (measured after a full collection,
// with every earlier structure still held), in MiB and in bytes per Service.
import { Planner } from '@portolan/planner';
import { encodeSnapshot, SnapshotReader } from '@portolan/snapshot';
import { defaultRenderTuning, renderHaproxyBundle } from '@portolan/haproxy-driver';
import { benchFleet, EventFeed } from './planner-feed.ts';
import { worldObjects } from './world.ts';

const n = Number(process.argv[2] ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

function live(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const rows: [string, number][] = [];
let last = live();
const start = last;
/** Records what the heap grew by since the previous step (everything built so far is still referenced). */
function step(name: string): void {
  const now = live();
  rows.push([name, now - last]);
  last = now;
}

const config = benchFleet([
  { name: 'edge', driver: 'haproxy', haproxy: { configDir: '/tmp/x', masterSocket: '/tmp/x/m' } },
]);
const feed = new EventFeed();
const events = worldObjects(n).map((o) => feed.event(o));
step('watch events, trimmed (the planner decodes them one at a time: not held in service)');
const planner = new Planner(config);
for (const e of events) planner.applyEvent(e);
events.length = 0;
planner.planDirty();
step('planner: world + engine + encoder (its whole state)');
const desired = planner.desiredState('edge')!;
step('desired state, materialised (the applier holds one per loaded snapshot)');
const encoded = encodeSnapshot(desired);
const pieces = encoded.bytes;
step('snapshot pieces as bytes (what Postgres and the bus carry)');
const reader = new SnapshotReader();
for (const [id, body] of pieces) reader.admit(id, body);
const read = reader.read(encoded.root, (id) => pieces.get(id));
step("applier's snapshot reader with its decoded views and the desired state it returns");
const bundle = renderHaproxyBundle(read, {
  configDir: '/tmp/x',
  defaultAddress: '127.0.0.1',
  sizing: { minFreeSlots: 4, slotIncrement: 8 },
  ...defaultRenderTuning,
});
step('HAProxy bundle rendered (config text parts, maps, backend slots)');
const text = bundle.files.map((f) => String(f.content)).join('');
step('the bundle flattened to strings (writing files, the apply record)');

const total = live() - start;
const mib = (b: number): string => (b / 1024 / 1024).toFixed(1).padStart(8);
process.stdout.write(`${n} Services: live heap by structure (MiB, bytes per Service)\n`);
for (const [name, bytes] of rows)
  process.stdout.write(`${mib(bytes)} ${String(Math.round(bytes / n)).padStart(7)}  ${name}\n`);
process.stdout.write(
  `${mib(total)} ${String(Math.round(total / n)).padStart(7)}  total (config text ${(text.length / 1024 / 1024).toFixed(1)} MiB)\n`,
);
void [planner, desired, pieces, reader, read, bundle];
