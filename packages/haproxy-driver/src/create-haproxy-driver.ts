import path from 'node:path';
import type { ApplianceConfig } from '@portolan/fleet-config';
import { HaproxyDriver } from './haproxy-driver.ts';
import { HaproxyDriverConfigError } from './errors.ts';

/**
 * Builds the driver for a fleet-config appliance entry, resolving its relative `configDir` and `masterSocket`
 * against `baseDir` (the fleet config file's directory). The applier's driver registry calls this by name.
 */
export function createHaproxyDriver(appliance: ApplianceConfig, baseDir: string): HaproxyDriver {
  const section = appliance.haproxy;
  if (section === undefined) throw new HaproxyDriverConfigError(`appliance ${appliance.name} has no "haproxy" section`);
  return new HaproxyDriver({
    appliance: appliance.name,
    config: {
      ...section,
      configDir: path.resolve(baseDir, section.configDir),
      masterSocket: path.resolve(baseDir, section.masterSocket),
    },
  });
}
