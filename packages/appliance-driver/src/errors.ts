import { PortolanError } from '@portolan/errors';

/** A driver was asked for something its capabilities say it cannot do: a bug in the caller. */
export class CapabilityMissingError extends PortolanError {
  readonly code = 'DRIVER_CAPABILITY_MISSING';

  constructor(driver: string, capability: string) {
    super(`the ${driver} driver has no ${capability}; its capabilities say so`);
  }
}
