import { selectionHeldSubject } from '@portolan/bus';
import { fleetConfigSchema } from '@portolan/fleet-config';
import { create, toBinary, timestampFromMs, SelectionHeldSchema } from '@portolan/proto';
import { selectionDrops } from './core/holds/config-change-hold.ts';
import type { WorldView } from './core/world/world-view.ts';
import type { PlannerServiceOptions } from './planner-service.ts';

/**
 * Compares what each appliance served under the fleet config of its head snapshot with what the config in force
 * serves; removals over the safety limits are published as SelectionHeld. True when something was published.
 */
export async function publishConfigDrops(o: PlannerServiceOptions, world: WorldView): Promise<boolean> {
  if (o.bus === null) return false;
  const previous = await o.store.headFleetConfigs();
  let published = false;
  for (const [hash, entry] of previous) {
    if (hash === o.fleetConfigHash) continue;
    const parsed = fleetConfigSchema.safeParse(entry.body);
    if (!parsed.success) continue;
    const drops = selectionDrops(world, parsed.data, o.config).filter((d) => entry.appliances.includes(d.appliance));
    for (const d of drops) {
      const msg = create(SelectionHeldSchema, {
        appliance: d.appliance,
        ingresses: d.ingresses.map((i) => `${i.cluster}/${i.namespace}/${i.name}`),
        reason: d.reason,
        previousConfigHash: hash,
        configHash: o.fleetConfigHash,
        heldAt: timestampFromMs(Date.now()),
      });
      await o.bus.publish(selectionHeldSubject, toBinary(SelectionHeldSchema, msg), {
        msgId: `selection:${d.appliance}:${hash}:${o.fleetConfigHash}`,
      });
      o.log.warn(
        { appliance: d.appliance, ingresses: d.ingresses.length, reason: d.reason },
        'fleet-config change held by the safety rule: approve with `portolan approve <appliance> --reason ...`',
      );
      published = true;
    }
  }
  return published;
}
