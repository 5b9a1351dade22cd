import { readFile } from 'node:fs/promises';
import type { ApplianceConfig } from '@portolan/fleet-config';
import { LoadMasterDriver } from './loadmaster-driver.ts';
import { PortolanError } from '@portolan/errors';

/** Raised when an appliance entry cannot make a LoadMaster driver (wrong driver, no credentials). */
export class LoadMasterConfigError extends PortolanError {
  readonly code = 'LOADMASTER_CONFIG';
}

/** Builds the driver from a fleet-config appliance entry, reading the password or API key file. */
export async function createLoadMasterDriver(appliance: ApplianceConfig): Promise<LoadMasterDriver> {
  const lm = appliance.loadmaster;
  if (appliance.driver !== 'loadmaster' || lm === undefined)
    throw new LoadMasterConfigError(`appliance ${appliance.name} is not a loadmaster appliance`);
  const read = async (path: string): Promise<string> => (await readFile(path, 'utf8')).replace(/\r?\n$/, '');
  let credentials;
  if (lm.apiKeyFile !== undefined) credentials = { apiKey: await read(lm.apiKeyFile) };
  else if (lm.username !== undefined && lm.passwordFile !== undefined)
    credentials = { user: lm.username, password: await read(lm.passwordFile) };
  else
    throw new LoadMasterConfigError(
      `appliance ${appliance.name}: loadmaster needs apiKeyFile, or username and passwordFile`,
    );
  return new LoadMasterDriver({
    appliance: appliance.name,
    url: lm.url,
    credentials,
    insecureTls: lm.insecureTls,
    maxCallsPer3s: lm.maxCallsPer3s,
    defaultAddress: lm.defaultAddress ?? null,
  });
}
