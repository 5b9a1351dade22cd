import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ApplianceConfig } from '@portolan/fleet-config';
import type { AcmeOrderClientOptions } from './adapters/acme-order-client.ts';
import { PortolanError } from '@portolan/errors';

/** The fleet config's `vtm.acme` section of an appliance. */
export type VtmAcmeConfig = NonNullable<NonNullable<ApplianceConfig['vtm']>['acme']>;

/** The fleet config names a CA file for the ACME server that cannot be read. */
export class AcmeConfigError extends PortolanError {
  readonly code = 'ACME_CONFIG';
}

/** ACME client options from the fleet config (`caFile` relative to `baseDir`, the fleet config's folder). */
export async function acmeClientOptions(acme: VtmAcmeConfig, baseDir: string): Promise<AcmeOrderClientOptions> {
  if (acme.caFile === undefined) return { directoryUrl: acme.directoryUrl, email: acme.email };
  try {
    return {
      directoryUrl: acme.directoryUrl,
      email: acme.email,
      caPem: await readFile(resolve(baseDir, acme.caFile), 'utf8'),
    };
  } catch (cause) {
    throw new AcmeConfigError(`cannot read the ACME CA file ${acme.caFile}`, { cause });
  }
}
