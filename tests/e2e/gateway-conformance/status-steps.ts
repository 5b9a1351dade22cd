import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pipeline } from '../pipeline-harness.ts';
import { CONTROLLER_NAME } from './cluster.ts';
import type { Ref, Step } from './index.ts';
import {
  assertCondition,
  assertLatest,
  conditionsOf,
  listenerStatuses,
  mustGet,
  poll,
  routeParents,
  TIMEOUTS,
  type KubeObject,
  type RouteParent,
  type Waits,
} from './kube-status.ts';

/** The status steps of the README's table, each with upstream's semantics and timeouts. */

type StepOf<K extends Step['kind']> = Extract<Step, { kind: K }>;
const GROUP = 'gateway.networking.k8s.io';

/** Where requests through a Gateway go: its first status address and a listener's port. */
export interface GatewayTarget {
  readonly address: string;
  readonly port: number;
}

/** GatewayAndHTTPRoutesMustBeAccepted: returns where later requests go. */
export async function accepted(p: Pipeline, w: Waits, step: StepOf<'accepted'>): Promise<GatewayTarget> {
  const gw = step.gateway;
  const target = await poll(p, w, `Gateway ${gw.name} to have an address`, TIMEOUTS.gateway, async () => {
    const g = await mustGet(p, 'Gateway', gw.name, gw.namespace);
    const address = ((g.status?.addresses ?? []) as { value: string }[])[0]?.value;
    assert.ok(address !== undefined && address !== '', 'no address in status');
    const listeners = (g.spec?.listeners ?? []) as { name: string; port: number }[];
    const first = step.listeners?.[0];
    const listener = first === undefined ? listeners[0] : listeners.find((l) => l.name === first);
    assert.ok(listener !== undefined, 'the Gateway has no such listener');
    return { address, port: listener.port };
  });
  for (const r of step.routes)
    await poll(p, w, `HTTPRoute ${r.name} to be accepted by ${gw.name}`, TIMEOUTS.route, async () => {
      const route = await mustGet(p, 'HTTPRoute', r.name, r.namespace);
      const found = routeParents(route).some(
        (parent) =>
          isGatewayParent(parent, gw, r.namespace) &&
          parent.controllerName === CONTROLLER_NAME &&
          (parent.conditions ?? []).some(
            (c) => c.type === 'Accepted' && c.status === 'True' && c.reason === 'Accepted',
          ),
      );
      assert.ok(found, `no accepted parent for ${gw.name} in ${JSON.stringify(route.status ?? {})}`);
    });
  await poll(p, w, `the listeners of ${gw.name} to be ready`, TIMEOUTS.listener, async () => {
    const listeners = listenerStatuses(await mustGet(p, 'Gateway', gw.name, gw.namespace));
    assert.ok(listeners.length > 0, 'no listener in status');
    for (const l of listeners)
      for (const type of ['ResolvedRefs', 'Accepted', 'Programmed'])
        assertCondition(l.conditions, { type, status: 'True' }, `listener ${l.name}`);
  });
  return target;
}

function isGatewayParent(parent: RouteParent, gw: Ref, routeNamespace: string): boolean {
  const ref = parent.parentRef;
  const namespace = ref.namespace ?? routeNamespace;
  return (
    (ref.group ?? GROUP) === GROUP &&
    (ref.kind ?? 'Gateway') === 'Gateway' &&
    ref.name === gw.name &&
    namespace === gw.namespace
  );
}

function assertParentsLatest(route: KubeObject): void {
  for (const parent of routeParents(route))
    assertLatest(parent.conditions, route.metadata.generation, `parent ${parent.parentRef.name}`);
}

/** HTTPRouteMustHaveCondition. */
export async function routeCondition(p: Pipeline, w: Waits, step: StepOf<'routeCondition'>): Promise<void> {
  const { route: r, gateway: gw } = step;
  await poll(p, w, `HTTPRoute ${r.name} to have ${step.condition.type} for ${gw.name}`, TIMEOUTS.route, async () => {
    const route = await mustGet(p, 'HTTPRoute', r.name, r.namespace);
    const parents = routeParents(route).filter((parent) => isGatewayParent(parent, gw, r.namespace));
    assert.ok(parents.length > 0, `no parent for ${gw.name}`);
    assert.ok(
      parents.some((parent) => (parent.conditions ?? []).some((c) => matches(c, step.condition))),
      `no ${JSON.stringify(step.condition)} in ${JSON.stringify(parents)}`,
    );
    assertParentsLatest(route);
  });
}

function matches(c: { type: string; status: string; reason: string }, want: StepOf<'routeCondition'>['condition']) {
  return (
    c.type === want.type &&
    (want.status === undefined || c.status === want.status) &&
    (want.reason === undefined || c.reason === want.reason)
  );
}

/** HTTPRouteMustHaveParents. */
export async function routeParentsStep(p: Pipeline, w: Waits, step: StepOf<'routeParents'>): Promise<void> {
  const r = step.route;
  await poll(p, w, `HTTPRoute ${r.name} to have its parents`, TIMEOUTS.route, async () => {
    const route = await mustGet(p, 'HTTPRoute', r.name, r.namespace);
    const actual = routeParents(route);
    for (const want of step.parents) {
      const e = want.parentRef;
      const found = actual.find(
        (a) =>
          a.controllerName === CONTROLLER_NAME &&
          a.parentRef.group === e.group &&
          a.parentRef.kind === e.kind &&
          a.parentRef.name === e.name &&
          (a.parentRef.namespace === e.namespace || (!step.namespaceRequired && a.parentRef.namespace === undefined)) &&
          want.conditions.every((c) => (a.conditions ?? []).some((ac) => matches(ac, c))),
      );
      assert.ok(found !== undefined, `no parent ${JSON.stringify(want)} in ${JSON.stringify(actual)}`);
    }
    assertParentsLatest(route);
  });
}

/** HTTPRouteMustHaveNoAcceptedParents: no parents on two polls a second apart, or a single one not accepted. */
export async function routeNotAccepted(p: Pipeline, w: Waits, step: StepOf<'routeNotAccepted'>): Promise<void> {
  const r = step.route;
  await poll(p, w, `HTTPRoute ${r.name} to have no accepted parent`, TIMEOUTS.route, async () => {
    const parents = routeParents(await mustGet(p, 'HTTPRoute', r.name, r.namespace));
    if (parents.length === 0) {
      await sleep(1000);
      const again = routeParents(await mustGet(p, 'HTTPRoute', r.name, r.namespace));
      assert.equal(again.length, 0, `parents appeared: ${JSON.stringify(again)}`);
      return;
    }
    assert.equal(parents.length, 1, `parents: ${JSON.stringify(parents)}`);
    assertCondition(parents[0]!.conditions, { type: 'Accepted', status: 'False' }, 'the parent');
  });
}

/** GatewayMustHaveCondition. */
export async function gatewayCondition(p: Pipeline, w: Waits, step: StepOf<'gatewayCondition'>): Promise<void> {
  const gw = step.gateway;
  await poll(p, w, `Gateway ${gw.name} to have ${step.condition.type}`, TIMEOUTS.gateway, async () => {
    const g = await mustGet(p, 'Gateway', gw.name, gw.namespace);
    assertCondition(conditionsOf(g), step.condition, `Gateway ${gw.name}`);
    assertLatest(conditionsOf(g), g.metadata.generation, `Gateway ${gw.name}`);
  });
}

/** GWCMustHaveAcceptedConditionAny and the like. */
export async function gatewayClassCondition(p: Pipeline, w: Waits, step: StepOf<'gatewayClassCondition'>) {
  await poll(
    p,
    w,
    `GatewayClass ${step.gatewayClass} to have ${step.condition.type}`,
    TIMEOUTS.gatewayClass,
    async () => {
      const gc = await mustGet(p, 'GatewayClass', step.gatewayClass);
      assertCondition(conditionsOf(gc), step.condition, `GatewayClass ${step.gatewayClass}`);
    },
  );
}

/** GatewayStatusMustHaveListeners. */
export async function listeners(p: Pipeline, w: Waits, step: StepOf<'listeners'>): Promise<void> {
  const gw = step.gateway;
  await poll(p, w, `Gateway ${gw.name} to have its listeners`, TIMEOUTS.listener, async () => {
    const actual = listenerStatuses(await mustGet(p, 'Gateway', gw.name, gw.namespace));
    assert.deepEqual(actual.map((l) => l.name).sort(), step.listeners.map((l) => l.name).sort(), 'listener names');
    for (const want of step.listeners) {
      const l = actual.find((a) => a.name === want.name)!;
      const kinds = (l.supportedKinds ?? []).map((k) => `${k.group ?? GROUP}/${k.kind}`);
      if (want.supportedKinds.length === 0) assert.deepEqual(kinds, [], `listener ${l.name} supportedKinds`);
      for (const k of want.supportedKinds)
        assert.ok(kinds.includes(`${k.group}/${k.kind}`), `listener ${l.name} lacks kind ${k.kind}: ${kinds.join()}`);
      assert.equal(l.attachedRoutes, want.attachedRoutes, `listener ${l.name} attachedRoutes`);
      for (const c of want.conditions) assertCondition(l.conditions, c, `listener ${l.name}`);
    }
  });
}

/** GatewayMustHaveZeroRoutes. */
export async function zeroRoutes(p: Pipeline, w: Waits, step: StepOf<'zeroRoutes'>): Promise<void> {
  const gw = step.gateway;
  await poll(p, w, `Gateway ${gw.name} to have no routes`, TIMEOUTS.listener, async () => {
    const actual = listenerStatuses(await mustGet(p, 'Gateway', gw.name, gw.namespace));
    if (actual.length === 0) return;
    assert.equal(actual.length, 1, `listeners: ${JSON.stringify(actual)}`);
    assert.equal(actual[0]!.attachedRoutes, 0, 'attachedRoutes');
  });
}

/** GatewayMustHaveLatestConditions and its GatewayClass and HTTPRoute kin. */
export async function latestConditions(p: Pipeline, w: Waits, step: StepOf<'latestConditions'>): Promise<void> {
  const o = step.object;
  const namespace = 'namespace' in o ? o.namespace : undefined;
  const timeout = o.kind === 'HTTPRoute' ? TIMEOUTS.route : TIMEOUTS.gateway;
  await poll(p, w, `${o.kind} ${o.name} to have its latest conditions`, timeout, async () => {
    const got = await mustGet(p, o.kind, o.name, namespace);
    if (o.kind === 'HTTPRoute') {
      assert.ok(routeParents(got).length > 0, 'no parents');
      assertParentsLatest(got);
      return;
    }
    assert.ok(conditionsOf(got).length > 0, 'no conditions');
    assertLatest(conditionsOf(got), got.metadata.generation, `${o.kind} ${o.name}`);
  });
}

/** NamespacesMustBeReady: every Gateway Accepted and Programmed at its generation (the echo pods are always ready). */
export async function namespacesReady(p: Pipeline, w: Waits, namespaces: readonly string[]): Promise<void> {
  await poll(p, w, `namespaces ${namespaces.join(', ')} to be ready`, TIMEOUTS.namespaces, async () => {
    for (const ns of namespaces) {
      const list = JSON.parse(
        await p.kubectl(['get', 'gateways.gateway.networking.k8s.io', '-n', ns, '-o', 'json']),
      ) as {
        items: KubeObject[];
      };
      for (const g of list.items) {
        if (g.metadata.annotations?.['gateway-api/skip-this-for-readiness'] === 'true') continue;
        const what = `Gateway ${ns}/${g.metadata.name}`;
        assertCondition(conditionsOf(g), { type: 'Accepted', status: 'True' }, what);
        assertCondition(conditionsOf(g), { type: 'Programmed', status: 'True' }, what);
        assertLatest(conditionsOf(g), g.metadata.generation, what);
      }
    }
  });
}
