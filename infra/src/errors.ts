import { PortolanError } from '@portolan/errors';
/** A stack service could not be installed, started or reached. The message names the service and shows its log tail. */
export class StackServiceError extends PortolanError {
  readonly code: 'STACK_PORT_TAKEN' | 'STACK_START_FAILED' | 'STACK_INSTALL_FAILED' | 'STACK_NOT_RUNNING';
  readonly service: string;
  constructor(code: StackServiceError['code'], service: string, message: string, options?: ErrorOptions) {
    super(`${service}: ${message}`, options);
    this.code = code;
    this.service = service;
  }
}

/** A process could not be started at all (no pid: the executable is missing or not runnable). */
export class SpawnError extends PortolanError {
  readonly code = 'SPAWN_FAILED';
}

/** A PORTOLAN_* setting holds a value that cannot be used; the message names the variable and the value. */
export class StackSettingError extends PortolanError {
  readonly code = 'STACK_SETTING_INVALID';
}

/** A signal could not be delivered to a process that still exists (it is not ours to stop). */
export class SignalError extends PortolanError {
  readonly code = 'SIGNAL_REFUSED';
}

/** The private network of the HA stack's sites could not be made, changed or removed; the message names the command. */
export class SiteNetworkError extends PortolanError {
  readonly code = 'SITE_NETWORK_FAILED';
}
