import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendRequest, type Reply } from '../http-client.ts';
import type { Expectation, ResolvedRequest, Step } from './index.ts';
import { TIMEOUTS, type Waits } from './kube-status.ts';
import type { GatewayTarget } from './status-steps.ts';

/** The request steps: upstream's MakeRequestAndExpectEventuallyConsistentResponse and TestWeightedDistribution. */

type StepOf<K extends Step['kind']> = Extract<Step, { kind: K }>;
/** Upstream's RequiredConsecutiveSuccesses. */
const CONSECUTIVE_SUCCESSES = 3;

export interface RequestContext {
  readonly waits: Waits;
  /** Where each accepted Gateway (`namespace/name`) takes requests. */
  readonly targets: ReadonlyMap<string, GatewayTarget>;
  /** Certificates (PEM) of the generated Secrets, by `namespace/name`. */
  readonly certificates: ReadonlyMap<string, string>;
}

/** Sends the request once, as upstream's client would (no redirect followed). */
export function send(
  ctx: RequestContext,
  request: ResolvedRequest,
  extraHeaders: Record<string, string> = {},
): Promise<Reply> {
  const target = ctx.targets.get(`${request.gateway.namespace}/${request.gateway.name}`);
  assert.ok(target !== undefined, `Gateway ${request.gateway.name} was not accepted`);
  const echoSet = Object.entries(request.echoResponseHeaders).map(([k, v]) => `${k}:${v}`);
  const headers = {
    ...request.headers,
    ...extraHeaders,
    ...(echoSet.length === 0 ? {} : { 'X-Echo-Set-Header': echoSet.join(',') }),
  };
  const tls = request.tls;
  const trust =
    tls === undefined
      ? undefined
      : ctx.certificates.get(`${tls.certificateSecret.namespace}/${tls.certificateSecret.name}`);
  return sendRequest(target.port, request.host ?? `${target.address}:${target.port}`, request.path, {
    address: target.address,
    https: request.scheme === 'https',
    method: request.method,
    headers,
    ...(tls === undefined ? {} : { sni: tls.serverName }),
    ...(trust === undefined ? {} : { trust }),
  });
}

/** Header values joined as upstream joins them (`,` without a space between repeated lines). */
const joined = (v: readonly string[] | string | undefined): string | undefined =>
  v === undefined ? undefined : Array.isArray(v) ? v.join(',') : (v as string);

/** Throws when the answer does not meet the expectation (upstream's CompareRoundTrip). */
export function checkReply(request: ResolvedRequest, expect: Expectation, r: Reply): void {
  assert.equal(r.status, expect.status, `status ${r.status}, want ${expect.status}: ${r.body.slice(0, 200)}`);
  if (expect.status >= 200 && expect.status < 300) checkBackend(request, expect, r);
  if (expect.redirect !== undefined) checkRedirect(request, expect.redirect, r);
}

function checkBackend(request: ResolvedRequest, expect: Expectation, r: Reply): void {
  const echo = r.echo;
  assert.ok(echo?.context !== undefined, 'the answer is not from an echo pod');
  if (expect.namespace !== undefined) assert.equal(echo.context.namespace, expect.namespace, 'namespace');
  if (expect.backend !== undefined)
    assert.ok(echo.context.pod.startsWith(expect.backend), `pod ${echo.context.pod}, want ${expect.backend}`);
  const seen = echo.headers ?? {};
  const want = expect.backendRequest;
  assert.equal(echo.path, want?.path ?? request.path, 'the path the backend saw');
  assert.equal(echo.method, want?.method ?? request.method, 'the method the backend saw');
  const host = want === undefined ? request.host : want.host;
  if (host !== undefined) assert.equal(echo.host, host, 'the Host the backend saw');
  for (const [name, value] of Object.entries(want?.headers ?? request.headers))
    assert.equal(joined(seen[name.toLowerCase()]), value, `request header ${name} at the backend`);
  for (const name of want?.absentHeaders ?? [])
    assert.equal(seen[name.toLowerCase()], undefined, `request header ${name} must not reach the backend`);
  for (const [name, value] of Object.entries(expect.responseHeaders))
    assert.equal(joined(r.headerLists[name.toLowerCase()]), value, `response header ${name}`);
  for (const name of expect.absentResponseHeaders)
    assert.equal(r.headers[name.toLowerCase()], undefined, `response header ${name} must be absent`);
}

function checkRedirect(request: ResolvedRequest, want: NonNullable<Expectation['redirect']>, r: Reply): void {
  const location = r.headers.location;
  assert.ok(location !== undefined, 'no Location');
  const url = new URL(location);
  const scheme = want.scheme ?? request.scheme;
  assert.equal(url.protocol, `${scheme}:`, `Location ${location}: scheme`);
  if (want.host !== undefined) assert.equal(url.hostname, want.host, `Location ${location}: host`);
  // URL drops the scheme's default port; a missing expected port means the default or none.
  const port = url.port === '' ? undefined : Number(url.port);
  const defaultPort = scheme === 'https' ? 443 : 80;
  assert.equal(port ?? defaultPort, want.port ?? defaultPort, `Location ${location}: port`);
  assert.equal(url.pathname, want.path ?? request.path.split('?')[0], `Location ${location}: path`);
}

/** Repeats the request until the answer meets the expectation 3 times in a row, for at most 30 s. */
export async function requestStep(ctx: RequestContext, step: StepOf<'request'>): Promise<void> {
  const deadline = performance.now() + Math.min(TIMEOUTS.consistency, ctx.waits.capMs ?? Infinity);
  let successes = 0;
  let last: unknown;
  for (;;) {
    try {
      checkReply(step.request, step.expect, await send(ctx, step.request));
      successes += 1;
      if (successes >= CONSECUTIVE_SUCCESSES) return;
    } catch (error) {
      successes = 0;
      last = error;
      if (performance.now() > deadline) break;
    }
    await sleep(successes > 0 ? 50 : 500);
  }
  const r = step.request;
  throw new Error(`${r.method} ${r.host ?? ''}${r.path} never answered as expected: ${(last as Error).message}`, {
    cause: last,
  });
}

/** Upstream's weight.TestWeightedDistribution: the share of each backend within the tolerance of its weight. */
export async function distribution(ctx: RequestContext, step: StepOf<'distribution'>): Promise<void> {
  let last: unknown;
  for (let attempt = 0; attempt < step.attempts; attempt++) {
    try {
      await distributionOnce(ctx, step);
      return;
    } catch (error) {
      last = error;
    }
  }
  throw new Error(`the distribution never matched in ${step.attempts} attempts: ${(last as Error).message}`, {
    cause: last,
  });
}

async function distributionOnce(ctx: RequestContext, step: StepOf<'distribution'>): Promise<void> {
  const counts = new Map<string, number>();
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (sent < step.requests) {
      sent += 1;
      const jitter: Record<string, string> = Math.random() < 0.5 ? { 'X-Jitter': String(randomInt(10_000)) } : {};
      const r = await send(ctx, step.request, jitter);
      checkReply(step.request, step.expect, r);
      // The pod name less its two hash suffixes is the Deployment's.
      const backend = r.echo!.context!.pod.split('-').slice(0, -2).join('-');
      counts.set(backend, (counts.get(backend) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: step.concurrency }, worker));
  const expected = Object.entries(step.weights)
    .filter(([, w]) => w > 0)
    .map(([b]) => b)
    .sort();
  assert.deepEqual([...counts.keys()].sort(), expected, `backends that answered: ${JSON.stringify([...counts])}`);
  for (const [backend, weight] of Object.entries(step.weights)) {
    const share = (counts.get(backend) ?? 0) / step.requests;
    assert.ok(Math.abs(share - weight) <= step.tolerance, `${backend} answered ${share.toFixed(3)}, weight ${weight}`);
  }
}
