// The everyday-operations day's vocabulary: teams, who answered a request, waiting for a host to be served or
// refused, the CLI and the simulator's faults, all against the day's one pipeline (set by startDay).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import { startPipeline, type Pipeline, type PipelineOptions } from './pipeline-harness.ts';
import { endpointSlice, ingress, namespace, service, type IngressPath } from './manifests.ts';
import { eventually } from './eventually.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const cli = path.join(root, 'packages', 'cli', 'bin', 'portolan.js');
const exec = promisify(execFile);
/** Every step must show its effect within this long (a user's patience, not a benchmark). */
export const STEP_MS = 10_000;
/** Loopback "pods": the echo backend answers on each. */
export const pod = (n: number): string => `127.0.41.${n}`;
export const PODS = Array.from({ length: 40 }, (_, i) => pod(i + 1));

/** The day's pipeline (a live binding: set by startDay, read by every step module). */
export let p: Pipeline;

/** Starts the day's pipeline; every helper below acts on it. */
export async function startDay(options: PipelineOptions): Promise<Pipeline> {
  p = await startPipeline(options);
  return p;
}

const context = (): string => p.diagnostics();
export const within = <T>(what: string, check: () => Promise<T>): Promise<T> =>
  eventually(what, check, { timeoutMs: STEP_MS, context });

/** A team: a namespace, one Service `web` with its pods, and one Ingress `web` routing its hosts to it. */
export function team(ns: string, hosts: readonly string[], pods: readonly string[], className = 'portolan'): string {
  return [
    namespace(ns),
    service(ns, 'web', p.echoPort),
    endpointSlice(ns, 'web', pods, p.echoPort),
    ingress(ns, 'web', {
      className,
      rules: hosts.map((host) => ({ host, paths: [{ path: '/', type: 'Prefix', service: 'web' }] as IngressPath[] })),
    }),
  ].join('');
}

/** The pod that answered a request through HAProxy, or `status N`. */
export async function who(host: string, urlPath = '/', https = false): Promise<string> {
  const r = await p.request(host, urlPath, { https });
  return r.echo?.address ?? `status ${r.status}`;
}

/** Waits until `host` is answered by one of `pods`. */
export const servedBy = (host: string, pods: readonly string[]): Promise<string> =>
  within(`${host} served by ${pods.join(',')}`, async () => {
    const got = await who(host);
    assert.ok(pods.includes(got), `${host}: ${got}`);
    return got;
  });
/** Waits until `host` answers with a status (404: no route; 503: no endpoints). */
export const answers = (host: string, status: number): Promise<unknown> =>
  within(`${host} to answer ${status}`, async () => assert.equal(await who(host), `status ${status}`));

/** Runs the `portolan` CLI against the pipeline's fleet config. */
export async function portolan(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await exec(process.execPath, [cli, ...args, '--config', p.fleetConfig], { cwd: root, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

/** Drives one of the simulator's fault controls (its admin endpoint takes the same bearer token as kubectl). */
export const fault = (body: Record<string, unknown>): Promise<string> =>
  p.kubectl(['create', '--raw', '/_sim/faults', '-f', '-'], JSON.stringify(body));
