import type { ApplianceDriver } from '@portolan/appliance-driver';
import type { DriverKind } from '@portolan/desired-state';
import type { ApplianceConfig } from '@portolan/fleet-config';
import { DriverLoadError } from '../errors.ts';

/** Builds the driver for one appliance entry of the fleet config. */
export type DriverFactory = (appliance: ApplianceConfig, baseDir: string) => Promise<ApplianceDriver<unknown>>;

type DriverModule = Record<string, unknown>;
type DriverClass = new (options: { appliance: string; config: unknown }) => ApplianceDriver<unknown>;

/** The HAProxy package exports its driver class (options: appliance name and the `haproxy` section). */
function haproxyFromClass(mod: DriverModule, appliance: ApplianceConfig): ApplianceDriver<unknown> | null {
  const Driver = mod['HaproxyDriver'];
  if (typeof Driver !== 'function' || appliance.haproxy === undefined) return null;
  return new (Driver as DriverClass)({ appliance: appliance.name, config: appliance.haproxy });
}

/** Where each driver kind lives: its package, the factory names it may export, and a fallback construction. */
const packages: Readonly<
  Record<
    DriverKind,
    {
      readonly name: string;
      readonly factories: readonly string[];
      readonly construct?: (mod: DriverModule, a: ApplianceConfig) => ApplianceDriver<unknown> | null;
    }
  >
> = {
  haproxy: {
    name: '@portolan/haproxy-driver',
    factories: ['createHaproxyDriver', 'createHAProxyDriver', 'createDriver'],
    construct: haproxyFromClass,
  },
  vtm: { name: '@portolan/vtm-driver', factories: ['createVtmDriver', 'createDriver'] },
  loadmaster: {
    name: '@portolan/loadmaster-driver',
    factories: ['createLoadMasterDriver', 'createLoadmasterDriver', 'createDriver'],
  },
};

/**
 * Driver kind → factory. Drivers are imported lazily by package name, so the applier builds and runs before
 * every driver exists, and one appliance's process loads only its own driver. Tests register a fake.
 */
export class DriverRegistry {
  private readonly overrides = new Map<DriverKind, DriverFactory>();

  /** Replaces the factory of a kind (tests, or a driver outside this repository). */
  register(kind: DriverKind, factory: DriverFactory): this {
    this.overrides.set(kind, factory);
    return this;
  }

  /** Creates the driver for an appliance. */
  async create(appliance: ApplianceConfig, baseDir: string): Promise<ApplianceDriver<unknown>> {
    const override = this.overrides.get(appliance.driver);
    const driver = override !== undefined ? await override(appliance, baseDir) : await this.load(appliance, baseDir);
    if (driver.kind !== appliance.driver) {
      await driver.close();
      throw new DriverLoadError(
        `a "${driver.kind}" driver was built for the "${appliance.driver}" appliance ${appliance.name}`,
      );
    }
    return driver;
  }

  private async load(appliance: ApplianceConfig, baseDir: string): Promise<ApplianceDriver<unknown>> {
    const where = packages[appliance.driver];
    let mod: DriverModule;
    try {
      mod = (await import(where.name)) as DriverModule;
    } catch (cause) {
      throw new DriverLoadError(
        `driver "${appliance.driver}" (${where.name}) cannot be loaded: ${(cause as Error).message}`,
        { cause },
      );
    }
    const factory = where.factories.map((n) => mod[n]).find((f) => typeof f === 'function') as
      DriverFactory | undefined;
    const driver =
      factory !== undefined ? await factory(appliance, baseDir) : (where.construct?.(mod, appliance) ?? null);
    if (driver === null) throw new DriverLoadError(`${where.name} exports none of ${where.factories.join(', ')}`);
    return driver;
  }
}
