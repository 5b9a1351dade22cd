import { PortolanError } from '@portolan/errors';

/** No driver can be built for an appliance entry: its package does not load, or it built a driver of another kind. */
export class DriverLoadError extends PortolanError {
  readonly code = 'DRIVER_UNAVAILABLE';
}
