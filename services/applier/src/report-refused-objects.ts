import {
  findRefusedSources,
  RenderRefusedError,
  type ApplianceDriver,
  type OperationOutcome,
  type SecretResolver,
} from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import type { ApplierBus } from './adapters/bus-adapter.ts';
import type { ApplierLogger } from './applier-options.ts';

/** The driver's result code for a configuration the appliance's own check refused as a whole. */
const CONFIG_INVALID = 'ConfigInvalid';

/**
 * Defence in depth, after an apply the appliance refused as a whole (HAProxy: `haproxy -c` failed): finds the
 * objects responsible by bisection against the appliance's own check and publishes them, so the planner leaves
 * them out of this appliance's plan (with a condition on each) and the next snapshot — everything else — applies.
 * Planning refuses what it knows an appliance would refuse; this catches what it does not know. Once per snapshot.
 */
export class RefusedObjectsReporter {
  readonly #searched = new Set<string>();
  readonly #o: {
    driver: ApplianceDriver<unknown>;
    secrets: SecretResolver;
    bus: ApplierBus | null;
    logger: ApplierLogger;
  };

  constructor(options: {
    driver: ApplianceDriver<unknown>;
    secrets: SecretResolver;
    bus: ApplierBus | null;
    logger: ApplierLogger;
  }) {
    this.#o = options;
  }

  /**
   * Runs a render. One that refuses one object's part (RenderRefusedError) fails the cycle; when this replica leads,
   * the object is reported as refused, so the planner's next snapshot leaves it out and everything else applies.
   */
  async render<T>(snapshotId: string, render: () => T, leads: boolean): Promise<T> {
    try {
      return render();
    } catch (e) {
      if (e instanceof RenderRefusedError && leads) await this.renderRefused(snapshotId, e);
      throw e;
    }
  }

  /** Reports the object a render refused (no search needed: the driver named it), once per snapshot. */
  async renderRefused(snapshotId: string, e: RenderRefusedError): Promise<void> {
    const { bus, logger } = this.#o;
    const key = `render:${snapshotId}`;
    if (bus === null || this.#searched.has(key)) return;
    this.#searched.add(key);
    if (this.#searched.size > 64) this.#searched.delete(this.#searched.values().next().value!);
    const { kind, cluster, namespace, name } = e.source;
    logger.warn(
      { snapshot: snapshotId, object: `${kind}/${cluster}/${namespace}/${name}`, reason: e.reason },
      'object refused by the driver: asking the planner to leave it out',
    );
    await bus.objectsRefused(snapshotId, [{ ref: e.source, message: e.reason }], new Date());
  }

  /** Searches and reports when `outcomes` hold a whole-configuration refusal not yet searched for this snapshot. */
  async afterApply(snapshotId: string, desired: DesiredState, outcomes: readonly OperationOutcome[]): Promise<void> {
    const { driver, secrets, bus, logger } = this.#o;
    if (!driver.capabilities.configurationCheck || bus === null || this.#searched.has(snapshotId)) return;
    if (!outcomes.some((o) => !o.result.ok && o.result.code === CONFIG_INVALID)) return;
    this.#searched.add(snapshotId);
    if (this.#searched.size > 64) this.#searched.delete(this.#searched.values().next().value!);
    const started = performance.now();
    const refused = await findRefusedSources(desired, (d) => driver.checkConfiguration(d, secrets));
    const ms = Math.round(performance.now() - started);
    if (refused === null) {
      logger.error(
        { snapshot: snapshotId, ms },
        'the appliance refused the configuration and no object could be isolated as the cause',
      );
      return;
    }
    logger.warn(
      {
        snapshot: snapshotId,
        ms,
        refused: refused.map((r) => ({
          object: `${r.ref.kind}/${r.ref.namespace}/${r.ref.name}`,
          message: r.message.slice(0, 300),
        })),
      },
      'objects refused by the appliance: asking the planner to leave them out',
    );
    await bus.objectsRefused(snapshotId, refused, new Date());
  }
}
