import type { ApplianceDriver } from '@portolan/appliance-driver';
import type { DriverKind } from '@portolan/desired-state';
import { errorMessage } from '@portolan/errors';
import type { ApplianceConfig } from '@portolan/fleet-config';
import { DriverLoadError } from './errors.ts';

/** Builds the driver for one appliance entry of the fleet config. */
export type DriverFactory = (appliance: ApplianceConfig, baseDir: string) => Promise<ApplianceDriver<unknown>>;

/**
 * Each kind's own factory, imported when first asked for: one appliance's process loads only its own driver (and
 * its dependencies), not all three.
 */
const builtIn: Readonly<Record<DriverKind, { readonly name: string; readonly load: () => Promise<DriverFactory> }>> = {
  haproxy: {
    name: '@portolan/haproxy-driver',
    load: async () => {
      const { createHaproxyDriver } = await import('@portolan/haproxy-driver');
      return async (appliance, baseDir) => createHaproxyDriver(appliance, baseDir);
    },
  },
  vtm: {
    name: '@portolan/vtm-driver',
    load: async () => {
      const { createVtmDriver } = await import('@portolan/vtm-driver');
      return (appliance, baseDir) => createVtmDriver(appliance, baseDir);
    },
  },
  loadmaster: {
    name: '@portolan/loadmaster-driver',
    load: async () => {
      const { createLoadMasterDriver } = await import('@portolan/loadmaster-driver');
      return (appliance) => createLoadMasterDriver(appliance);
    },
  },
};

/**
 * Driver kind → factory: the built-in driver of each kind unless one is registered in its place (tests, a vTM driver
 * with ACME challenges, a driver outside this repository).
 */
export class DriverRegistry {
  readonly #overrides = new Map<DriverKind, DriverFactory>();

  /** Replaces the factory of a kind. */
  register(kind: DriverKind, factory: DriverFactory): this {
    this.#overrides.set(kind, factory);
    return this;
  }

  /** Creates the driver for an appliance; refuses (and closes) a driver of another kind than the entry names. */
  async create(appliance: ApplianceConfig, baseDir: string): Promise<ApplianceDriver<unknown>> {
    const factory = this.#overrides.get(appliance.driver) ?? (await loadBuiltIn(appliance.driver));
    const driver = await factory(appliance, baseDir);
    if (driver.kind !== appliance.driver) {
      await driver.close();
      throw new DriverLoadError(
        `a "${driver.kind}" driver was built for the "${appliance.driver}" appliance ${appliance.name}`,
      );
    }
    return driver;
  }
}

async function loadBuiltIn(kind: DriverKind): Promise<DriverFactory> {
  const where = builtIn[kind];
  try {
    return await where.load();
  } catch (cause) {
    throw new DriverLoadError(`driver "${kind}" (${where.name}) cannot be loaded: ${errorMessage(cause)}`, { cause });
  }
}
