import type { Route } from '@portolan/desired-state';
import { RenderRefusedError } from '@portolan/appliance-driver';

/**
 * A route the LoadMaster cannot carry exactly (a header value with a control character, more flags than the
 * nine of a virtual service, a filter content rules cannot express). It names the route's Kubernetes object, so
 * the applier reports it and the planner leaves that object out of this appliance's plan.
 */
export class LoadMasterRouteRefusedError extends RenderRefusedError {
  readonly code = 'LOADMASTER_ROUTE_REFUSED';

  constructor(route: Pick<Route, 'source' | 'host' | 'path'>, reason: string) {
    const { cluster, kind, namespace, name } = route.source;
    const where = `route ${JSON.stringify(route.host)} ${JSON.stringify(route.path)}`;
    super(route.source, `${where}: ${reason}`, `${where} of ${kind} ${cluster}/${namespace}/${name}: ${reason}`);
  }
}
