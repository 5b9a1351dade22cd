import http from 'node:http';
import path from 'node:path';
import { localStack } from '../local-stack.ts';
import { waitFor } from '../process-control.ts';
import { UP_LEADER_HEALTH_PORT, type DemoLayout } from './demo-files.ts';
import { launchPipeline, stopPipeline } from './pipeline-launcher.ts';
import { sampleManifests } from './sample-manifests.ts';

/** Options of `portolan up`. */
export interface UpOptions {
  /** Folder for all demo state (default `.portolan` under the working directory). */
  readonly root?: string;
  readonly kubeconfig?: string;
  readonly httpPort?: number;
  readonly httpsPort?: number;
  readonly log?: (line: string) => void;
}

/** What `portolan up` prints. */
export interface UpResult {
  readonly layout: DemoLayout;
  readonly httpUrl: string;
  readonly httpsUrl: string;
  readonly serving: boolean;
}

/** Starts the stack, the simulator, the emulators, echo backends and the pipeline; applies the sample manifests. */
export async function portolanUp(options: UpOptions = {}): Promise<UpResult> {
  const root = path.resolve(options.root ?? path.join(process.cwd(), '.portolan'));
  const pipeline = await launchPipeline({
    root,
    ...(options.kubeconfig === undefined ? {} : { kubeconfig: options.kubeconfig }),
    haproxyPorts: {
      ...(options.httpPort ? { http: options.httpPort } : {}),
      ...(options.httpsPort ? { https: options.httpsPort } : {}),
    },
    ports: { leaderHealth: UP_LEADER_HEALTH_PORT },
    manifests: sampleManifests(),
    ...(options.log ? { log: options.log } : {}),
  });
  const httpUrl = `http://127.0.0.1:${pipeline.haproxy.httpPort}`;
  const serving = await waitFor(async () => (await statusWithHost(`${httpUrl}/`, 'demo.local')) === 200, 60_000, 250);
  return { layout: pipeline.layout, httpUrl, httpsUrl: `https://127.0.0.1:${pipeline.haproxy.httpsPort}`, serving };
}

/** Stops every demo process, then the stack (data is kept). */
export async function portolanDown(options: { root?: string; log?: (line: string) => void } = {}): Promise<void> {
  const root = path.resolve(options.root ?? path.join(process.cwd(), '.portolan'));
  await stopPipeline(root, undefined, options.log);
  await localStack({ config: { stateDir: path.join(root, 'stack') } }).down();
}

/** GET with an explicit Host header (fetch forbids setting Host); resolves the status, or 0 on a connection error. */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers: { host }, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
  });
}
