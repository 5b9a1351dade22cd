import type { JsonObject, ObjectCondition, ObjectRef } from '@portolan/desired-state';
import type { ManagedGateway, ParentStatus } from './attach.ts';
import type { JudgedListener } from './listeners.ts';
import {
  routeKind,
  type GatewayClassInput,
  type GatewayCondition,
  type GatewayInput,
  type HttpRouteInput,
} from './gateway-types.ts';

/**
 * The status each Gateway API object gets from this appliance's controller, as the specification shapes it, carried
 * on the object's Accepted or Rejected condition line (ObjectCondition.status). The applier's leader writes it: it
 * adds lastTransitionTime (kept while a condition's status holds) and the Gateway's addresses, and keeps the route
 * parents other controllers wrote.
 */

/** The Gateway API release whose CRDs this translation follows (GatewayClass SupportedVersion). */
export const GATEWAY_API_VERSION = 'v1.3.0';

const condition = (c: GatewayCondition, observedGeneration: number): JsonObject => ({ ...c, observedGeneration });

export function classCondition(cluster: string, c: GatewayClassInput): ObjectCondition {
  const object: ObjectRef = { cluster, kind: 'GatewayClass', namespace: '', name: c.name };
  const conditions = [
    { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'Accepted by Portolan' },
    {
      type: 'SupportedVersion',
      status: 'True',
      reason: 'SupportedVersion',
      message: `Gateway API ${GATEWAY_API_VERSION}`,
    },
  ] as const;
  return {
    object,
    type: 'Accepted',
    reason: 'Accepted',
    message: 'GatewayClass accepted',
    status: { conditions: conditions.map((x) => condition(x, c.generation)) },
  };
}

/**
 * A Gateway's lines: a Warning per unusable listener, then Accepted (True while one listener is usable, with reason
 * ListenersNotValid when some are not) carrying the whole status: the Gateway's Accepted and Programmed, and per
 * listener its conditions, supported kinds and attached routes.
 */
export function gatewayConditions(
  cluster: string,
  gw: GatewayInput,
  listeners: readonly JudgedListener[],
  attached: ReadonlyMap<string, number>,
): ObjectCondition[] {
  const object: ObjectRef = { cluster, kind: 'Gateway', namespace: gw.namespace, name: gw.name };
  const out: ObjectCondition[] = [];
  for (const l of listeners)
    for (const c of l.conditions)
      if (!l.usable && c.status === 'False' && c.type !== 'Programmed')
        out.push({ object, type: 'Warning', reason: c.reason, message: `listener ${l.listener.name}: ${c.message}` });
  const usable = listeners.filter((l) => l.usable).length;
  const accepted: GatewayCondition = gw.parametersRef
    ? {
        type: 'Accepted',
        status: 'False',
        reason: 'InvalidParameters',
        message: 'spec.infrastructure.parametersRef names nothing Portolan reads: it takes no parameters',
      }
    : usable === listeners.length
      ? { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'Gateway accepted' }
      : {
          type: 'Accepted',
          status: usable > 0 ? 'True' : 'False',
          reason: 'ListenersNotValid',
          message: `${listeners.length - usable} of ${listeners.length} listeners are not valid`,
        };
  const programmed: GatewayCondition =
    usable > 0
      ? { type: 'Programmed', status: 'True', reason: 'Programmed', message: 'Programmed on the appliance' }
      : { type: 'Programmed', status: 'False', reason: 'Invalid', message: 'no listener can be programmed' };
  const status: JsonObject = {
    conditions: [condition(accepted, gw.generation), condition(programmed, gw.generation)],
    listeners: listeners.map((l) => ({
      name: l.listener.name,
      supportedKinds: l.supportedKinds.map((kind) => ({ group: 'gateway.networking.k8s.io', kind })),
      attachedRoutes: attached.get(`${gw.namespace}/${gw.name}/${l.listener.name}`) ?? 0,
      conditions: l.conditions.map((c) => condition(c, gw.generation)),
    })),
  };
  out.push(
    usable > 0
      ? { object, type: 'Accepted', reason: accepted.reason, message: accepted.message, status }
      : {
          object,
          type: 'Rejected',
          reason: accepted.reason,
          message: accepted.status === 'False' ? accepted.message : 'no listener of the Gateway is usable',
          status,
        },
  );
  return out;
}

/** The managed Gateway a parent status names. */
export function gatewayOf(
  managed: ReadonlyMap<string, ManagedGateway>,
  route: HttpRouteInput,
  s: ParentStatus,
): GatewayInput {
  const ns = s.parentRef.namespace === '' ? route.namespace : s.parentRef.namespace;
  return managed.get(`${ns}/${s.parentRef.name}`)!.gateway;
}

/**
 * A route's lines: Accepted (or Rejected with the first parent's reason, or UnsupportedValue when this appliance's
 * driver cannot serve it) carrying `status.parents` for the parents this controller manages, and a Warning when
 * a backend does not resolve.
 */
export function routeConditions(
  cluster: string,
  route: HttpRouteInput,
  statuses: readonly ParentStatus[],
  refusal: string | null,
  controllerOf: (s: ParentStatus) => string,
): ObjectCondition[] {
  const object: ObjectRef = { cluster, kind: routeKind(route), namespace: route.namespace, name: route.name };
  const parents = statuses.map((s) => ({
    parentRef: parentRefJson(s),
    controllerName: controllerOf(s),
    conditions: s.conditions
      .map((c) =>
        refusal !== null && c.type === 'Accepted'
          ? { type: 'Accepted', status: 'False' as const, reason: 'UnsupportedValue', message: refusal }
          : c,
      )
      .map((c) => condition(c, route.generation)),
  }));
  const status: JsonObject = { parents };
  if (refusal !== null) return [{ object, type: 'Rejected', reason: 'UnsupportedValue', message: refusal, status }];
  const out: ObjectCondition[] = [];
  const accepted = statuses.some((s) => s.conditions.some((c) => c.type === 'Accepted' && c.status === 'True'));
  const first = statuses.flatMap((s) => s.conditions).find((c) => c.type === 'Accepted' && c.status === 'False');
  out.push(
    accepted
      ? { object, type: 'Accepted', reason: 'Accepted', message: 'Route accepted', status }
      : {
          object,
          type: 'Rejected',
          reason: first?.reason ?? 'NoMatchingParent',
          message: first?.message ?? '',
          status,
        },
  );
  const refs = statuses.flatMap((s) => s.conditions).find((c) => c.type === 'ResolvedRefs' && c.status === 'False');
  if (refs !== undefined) out.push({ object, type: 'Warning', reason: refs.reason, message: refs.message });
  return out;
}

/** The parentRef as the route wrote it: fields left unset stay unset. */
function parentRefJson(s: ParentStatus): JsonObject {
  const r = s.parentRef;
  return {
    group: r.group,
    kind: r.kind,
    ...(r.namespace === '' ? {} : { namespace: r.namespace }),
    name: r.name,
    ...(r.sectionName === '' ? {} : { sectionName: r.sectionName }),
    ...(r.port === 0 ? {} : { port: r.port }),
  };
}
