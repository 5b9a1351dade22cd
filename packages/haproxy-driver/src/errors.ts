/**
 * Infrastructure failures of the HAProxy driver (one class per failure, stable `code`, `cause` kept).
 * Appliance-side refusals are not errors: they come back as failed `OperationResult`s.
 */
import type { Route } from '@portolan/desired-state';
import { RenderRefusedError } from '@portolan/appliance-driver';
import { PortolanError } from '@portolan/errors';

/** A Runtime API or master CLI socket could not be reached, closed early, or did not answer in time. */
export class HaproxySocketError extends PortolanError {
  readonly code = 'HAPROXY_SOCKET';
  readonly socketPath: string;

  constructor(message: string, socketPath: string, options?: ErrorOptions) {
    super(`${message} (${socketPath})`, options);
    this.socketPath = socketPath;
  }
}

/** The HAProxy process did not start, or did not become ready in time. */
export class HaproxyStartError extends PortolanError {
  readonly code = 'HAPROXY_START';
}

/** HAProxy answered something the driver cannot parse (a bug or an unsupported HAProxy version). */
export class HaproxyProtocolError extends PortolanError {
  readonly code = 'HAPROXY_PROTOCOL';
}

/** A file path that would leave the config directory: a bug in whoever built the operation. */
export class HaproxyPathError extends PortolanError {
  readonly code = 'HAPROXY_PATH_OUTSIDE_CONFIG_DIR';

  constructor(rel: string) {
    super(`refusing to write outside the config directory: ${rel}`);
  }
}

/** haproxy.cfg could not be brought in step with the Runtime API (a queued server-line write failed). */
export class HaproxyConfigWriteError extends PortolanError {
  readonly code = 'HAPROXY_CONFIG_WRITE';
}

/** The appliance entry cannot configure a HAProxy driver (it has no `haproxy` section). */
export class HaproxyDriverConfigError extends PortolanError {
  readonly code = 'HAPROXY_DRIVER_CONFIG';
}

/**
 * A route carries a value the driver will not write into haproxy.cfg (a control character, a regex construct
 * PCRE2 reads differently from POSIX, an unsupported status): refused rather than emitted, so a hostile value
 * can never become configuration. Names the route by its source, host and path.
 */
export class HaproxyRouteRefusedError extends RenderRefusedError {
  readonly code = 'HAPROXY_ROUTE_REFUSED';

  constructor(route: Pick<Route, 'source' | 'host' | 'path'>, reason: string) {
    const { cluster, kind, namespace, name } = route.source;
    super(
      route.source,
      `route ${JSON.stringify(route.host)} ${JSON.stringify(route.path)}: ${reason}`,
      `route ${JSON.stringify(route.host)} ${JSON.stringify(route.path)} of ${kind} ${cluster}/${namespace}/${name}: ${reason}`,
    );
  }
}
