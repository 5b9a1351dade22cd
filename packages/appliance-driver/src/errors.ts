import type { ObjectRef } from '@portolan/desired-state';
import { PortolanError } from '@portolan/errors';

/** A driver was asked for something its capabilities say it cannot do: a bug in the caller. */
export class CapabilityMissingError extends PortolanError {
  readonly code = 'DRIVER_CAPABILITY_MISSING';

  constructor(driver: string, capability: string) {
    super(`the ${driver} driver has no ${capability}; its capabilities say so`);
  }
}

/**
 * A render refused one object's part of the desired state: a value the driver will not write for the appliance
 * (HAProxy: a regex construct its PCRE2 would read differently). It names the Kubernetes object, so the applier
 * can ask the planner to leave that object out of this appliance's plan and everything else still applies.
 */
export abstract class RenderRefusedError extends PortolanError {
  readonly source: ObjectRef;
  readonly reason: string;

  constructor(source: ObjectRef, reason: string, message: string) {
    super(message);
    this.source = source;
    this.reason = reason;
  }
}
