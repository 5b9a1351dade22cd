import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import type { TLSSocket } from 'node:tls';
import type {
  RenderMode,
  ExecutionContext,
  Operation,
  OperationResult,
  SecretResolver,
  TlsMaterial,
} from '@portolan/appliance-driver';
import type { DesiredState, ObjectRef } from '@portolan/desired-state';
import type { EchoReply } from '@portolan/echo-backend';
import { HaproxyDriver, type HaproxyApplianceConfig } from '../haproxy-driver.ts';
import type { HaproxyBundle } from '../core/haproxy-bundle.ts';
import { type RunningHaproxy, startHaproxy } from '../adapters/start-haproxy.ts';

/** Test harness: a real HAProxy in a temp directory, a driver for it, and helpers to apply and to send requests. */

/** A free TCP port on 127.0.0.1, outside the kernel's ephemeral range (see infra's `freePort`). */
export { freePort } from '@portolan/infra';

/** Secrets held in memory, keyed by Secret name. */
export class MemorySecrets implements SecretResolver {
  readonly material = new Map<string, TlsMaterial>();
  resolve(secret: ObjectRef): Promise<TlsMaterial> {
    const found = this.material.get(secret.name);
    return found ? Promise.resolve(found) : Promise.reject(new Error(`no secret ${secret.name}`));
  }
}

/** Outcome of one read → render → diff → execute round. */
export interface ApplyRound {
  /** The render the operations were diffed from: what HAProxy holds once they all succeeded. */
  readonly rendered: HaproxyBundle;
  readonly operations: readonly Operation[];
  readonly results: readonly OperationResult[];
}

/** A running HAProxy with its driver. */
export interface Harness extends AsyncDisposable {
  readonly dir: string;
  readonly haproxy: RunningHaproxy;
  readonly driver: HaproxyDriver;
  readonly secrets: MemorySecrets;
  readonly config: HaproxyApplianceConfig;
  /** One applier round: readBack, render (tidy when asked), diff, executeAll. */
  apply(desired: DesiredState, epoch?: number, mode?: RenderMode): Promise<ApplyRound>;
  /** Operations a fresh read-back would still want (empty when converged). */
  pending(desired: DesiredState): Promise<readonly Operation[]>;
}

/** Starts HAProxy in a fresh temp directory and builds a driver for it. */
export async function startHarness(
  sizing: {
    minFreeSlots: number;
    slotIncrement: number;
    serverLinesWriteDelayMs?: number;
    spareBackends?: number;
    spareSlots?: number;
  } = {
    minFreeSlots: 2,
    slotIncrement: 4,
  },
): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portolan-haproxy-'));
  const masterSocket = path.join(dir, 'master.sock');
  let haproxy: RunningHaproxy;
  try {
    haproxy = await startHaproxy({ configDir: dir, masterSocket, appliance: 'edge' });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const config: HaproxyApplianceConfig = {
    configDir: dir,
    masterSocket,
    address: '127.0.0.1',
    httpPort: 0,
    httpsPort: 0,
    binary: 'haproxy',
    ...sizing,
  };
  const driver = new HaproxyDriver({ appliance: 'edge', config });
  const secrets = new MemorySecrets();
  const context = (epoch: number, target?: HaproxyBundle): ExecutionContext<HaproxyBundle> => ({
    epoch,
    secrets,
    signal: new AbortController().signal,
    ...(target === undefined ? {} : { target }),
  });
  const close = async (): Promise<void> => {
    await driver.close();
    await haproxy.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return {
    dir,
    haproxy,
    driver,
    secrets,
    config,
    async apply(desired, epoch = 1, mode = {}) {
      const observed = await driver.readBack(AbortSignal.timeout(10_000));
      const rendered = driver.render(desired, observed, mode);
      const operations = driver.diff(rendered, observed);
      const results = await driver.executeAll(operations, context(epoch, rendered));
      return { rendered, operations, results };
    },
    async pending(desired) {
      const observed = await driver.readBack(AbortSignal.timeout(10_000));
      return driver.diff(driver.render(desired, observed), observed);
    },
    [Symbol.asyncDispose]: close,
  };
}

/** What a request through HAProxy came back with. */
export interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  /** Parsed JSON body when the echo backend answered, else null. */
  readonly echo: EchoReply | null;
  /** Subject CN of the certificate the server presented (HTTPS only). */
  readonly certificateCn: string | null;
}

/**
 * Sends `path` (GET unless `method` says otherwise) to 127.0.0.1:`port` with a Host header (and, for HTTPS, the
 * same SNI unless `sni` is given).
 */
export function request(
  port: number,
  host: string,
  requestPath: string,
  extra: { tls?: boolean; sni?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<Reply> {
  const tls = extra.tls === true;
  return new Promise((resolve, reject) => {
    const options = {
      host: '127.0.0.1',
      port,
      path: requestPath,
      method: extra.method ?? 'GET',
      headers: { host, ...extra.headers },
      agent: false as const,
      timeout: 5_000,
    };
    const onResponse = (res: http.IncomingMessage): void => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        let echo: Reply['echo'] = null;
        try {
          echo = JSON.parse(body) as Reply['echo'];
        } catch {
          echo = null;
        }
        const socket = res.socket as TLSSocket;
        const cert = tls ? socket.getPeerCertificate?.() : undefined;
        const cn = cert?.subject?.CN;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          echo,
          certificateCn: typeof cn === 'string' ? cn : null,
        });
      });
    };
    const req = tls
      ? https.request(
          { ...options, servername: extra.sni ?? host.split(':')[0], rejectUnauthorized: false },
          onResponse,
        )
      : http.request(options, onResponse);
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** A self-signed certificate for `hosts` (first one is the CN), generated with openssl. */
export function selfSignedCertificate(hosts: readonly string[], dir: string): TlsMaterial {
  const key = path.join(dir, `k-${hosts[0]}.pem`);
  const crt = path.join(dir, `c-${hosts[0]}.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      crt,
      '-days',
      '2',
      '-subj',
      `/CN=${hosts[0]}`,
      '-addext',
      `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}`,
    ],
    { stdio: 'ignore' },
  );
  const material = { certificatePem: fs.readFileSync(crt, 'utf8'), privateKeyPem: fs.readFileSync(key, 'utf8') };
  fs.rmSync(key);
  fs.rmSync(crt);
  return material;
}
