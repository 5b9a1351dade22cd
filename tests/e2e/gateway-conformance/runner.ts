import assert from 'node:assert/strict';
import {
  BASE_NAMESPACES,
  controllerSlices,
  podEndpoint,
  prepared,
  yamlOf,
  type ConformanceCluster,
} from './cluster.ts';
import type { ConformanceTest, Manifest, ObjectRef, Step } from './index.ts';
import { mustGet, resourceOf, type Waits } from './kube-status.ts';
import { distribution, requestStep, type RequestContext } from './request-steps.ts';
import {
  accepted,
  gatewayClassCondition,
  gatewayCondition,
  latestConditions,
  listeners,
  namespacesReady,
  routeCondition,
  routeNotAccepted,
  routeParentsStep,
  zeroRoutes,
  type GatewayTarget,
} from './status-steps.ts';

/**
 * Drives one Gateway API conformance test (README.md) against a running cluster: applies its manifests, runs its
 * steps in order with upstream's semantics, and deletes what it applied, whatever the outcome.
 */

export type TestOutcome = { readonly ok: true } | { readonly ok: false; readonly step: number; readonly error: string };

/** Options of a run: `capMs` caps every upstream timeout (a quicker, stricter run). */
export type RunOptions = Waits;

interface TestRun {
  readonly c: ConformanceCluster;
  readonly waits: Waits;
  readonly targets: Map<string, GatewayTarget>;
  /** Everything applied, to delete afterwards. */
  readonly applied: Manifest[];
}

/** Waits until the base namespaces are ready (upstream does it once before the tests). */
export async function waitForBase(c: ConformanceCluster, options: RunOptions = {}): Promise<void> {
  await namespacesReady(c.p, options, BASE_NAMESPACES);
}

/** Runs one test; never throws for a failed check (the outcome says which step failed and why). */
export async function runTest(
  c: ConformanceCluster,
  test: ConformanceTest,
  options: RunOptions = {},
): Promise<TestOutcome> {
  const run: TestRun = { c, waits: options, targets: new Map(), applied: [] };
  let index = -1;
  try {
    await applyAll(run, test.manifests);
    for (index = 0; index < test.steps.length;) {
      const requests = requestRun(test.steps, index);
      if (requests === 0) await runStep(run, test.steps[index++]!);
      else index = await runRequests(run, test.steps, index, requests);
    }
    return { ok: true };
  } catch (error) {
    if (error instanceof StepError) index = error.index;
    const step = test.steps[index];
    const label =
      step === undefined ? 'manifests' : `steps[${index}] ${step.kind}${step.name ? ` (${step.name})` : ''}`;
    return { ok: false, step: index, error: `${label}: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    await deleteAll(run);
  }
}

/** How many request steps follow one another from `from` (0 when that step is not a request). */
function requestRun(steps: readonly Step[], from: number): number {
  let n = 0;
  while (steps[from + n]?.kind === 'request') n++;
  return n;
}

/**
 * Runs `count` consecutive request steps at once, as upstream runs them (parallel subtests, each retried until it
 * holds); returns the index after them, or throws for the first that failed, with `index` set to it (`run`'s caller
 * names the step).
 */
async function runRequests(run: TestRun, steps: readonly Step[], from: number, count: number): Promise<number> {
  const outcomes = await Promise.allSettled(steps.slice(from, from + count).map((step) => runStep(run, step)));
  const failed = outcomes.findIndex((o) => o.status === 'rejected');
  if (failed < 0) return from + count;
  throw new StepError(from + failed, (outcomes[failed] as PromiseRejectedResult).reason);
}

/** A failure of one step among several run together. */
class StepError extends Error {
  readonly index: number;
  constructor(index: number, reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
    this.index = index;
  }
}

async function applyAll(run: TestRun, manifests: readonly Manifest[]): Promise<void> {
  const objects = manifests.map(prepared);
  const slices = controllerSlices(objects, run.c.pods);
  run.applied.push(...objects, ...slices);
  await run.c.p.apply(yamlOf([...objects, ...slices]));
}

async function deleteAll(run: TestRun): Promise<void> {
  for (const m of run.applied.slice().reverse()) {
    try {
      await run.c.p.kubectl(['delete', '--ignore-not-found', '--wait=false', '-f', '-'], yamlOf([m]));
    } catch (error) {
      // A kind the simulator does not serve (e.g. ReferenceGrant v1) was never created: nothing to delete.
      if (!(error instanceof Error && /no matches for kind/.test(error.message))) throw error;
    }
  }
}

async function runStep(run: TestRun, step: Step): Promise<void> {
  const { p } = run.c;
  const w = run.waits;
  switch (step.kind) {
    case 'accepted':
      run.targets.set(`${step.gateway.namespace}/${step.gateway.name}`, await accepted(p, w, step));
      return;
    case 'routeCondition':
      return routeCondition(p, w, step);
    case 'routeParents':
      return routeParentsStep(p, w, step);
    case 'routeNotAccepted':
      return routeNotAccepted(p, w, step);
    case 'gatewayCondition':
      return gatewayCondition(p, w, step);
    case 'gatewayClassCondition':
      return gatewayClassCondition(p, w, step);
    case 'listeners':
      return listeners(p, w, step);
    case 'zeroRoutes':
      return zeroRoutes(p, w, step);
    case 'latestConditions':
      return latestConditions(p, w, step);
    case 'namespacesReady':
      return namespacesReady(p, w, step.namespaces);
    case 'apply':
      return applyAll(run, step.manifests);
    case 'delete':
      for (const o of step.objects) await p.kubectl(['delete', '--ignore-not-found', ...target(o)]);
      return;
    case 'patch':
      return patch(run, step);
    case 'fillEndpointSlices':
      return fillEndpointSlices(run, step);
    case 'request':
      return requestStep(requestContext(run), step);
    case 'distribution':
      return distribution(requestContext(run), step);
  }
}

function requestContext(run: TestRun): RequestContext {
  return { waits: run.waits, targets: run.targets, certificates: run.c.certificates };
}

function target(o: ObjectRef): string[] {
  return [`${resourceOf(o.kind)}/${o.name}`, ...(o.namespace === undefined ? [] : ['-n', o.namespace])];
}

/** A JSON merge patch; with generationChanges, metadata.generation must have moved. */
async function patch(run: TestRun, step: Extract<Step, { kind: 'patch' }>): Promise<void> {
  const { p } = run.c;
  const t = step.target;
  const before = (await mustGet(p, t.kind, t.name, t.namespace)).metadata.generation;
  await p.kubectl(['patch', ...target(t), '--type', 'merge', '-p', JSON.stringify(step.mergePatch)]);
  const after = (await mustGet(p, t.kind, t.name, t.namespace)).metadata.generation;
  if (step.generationChanges) assert.notEqual(after, before, `${t.kind} ${t.name}: generation did not change`);
}

/** HTTPRouteServiceTypes' setup: IPv4 slices get one endpoint per pod of the Deployment; IPv6 ones stay empty. */
async function fillEndpointSlices(run: TestRun, step: Extract<Step, { kind: 'fillEndpointSlices' }>): Promise<void> {
  const { p } = run.c;
  const pods = run.c.pods.get(`${step.deployment.namespace}/${step.deployment.name}`);
  assert.ok(pods !== undefined, `no pods of ${step.deployment.name}`);
  for (const s of step.endpointSlices) {
    const slice = await mustGet(p, 'EndpointSlice', s.name, s.namespace);
    if ((slice as unknown as { addressType?: string }).addressType !== 'IPv4') continue;
    const body = JSON.stringify({ endpoints: pods.map(podEndpoint) });
    await p.kubectl([
      'patch',
      `${resourceOf('EndpointSlice')}/${s.name}`,
      '-n',
      s.namespace,
      '--type',
      'merge',
      '-p',
      body,
    ]);
  }
}
