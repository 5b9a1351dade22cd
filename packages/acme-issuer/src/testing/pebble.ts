import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort, freeUdpAndTcpPort } from './free-port.ts';
import { issueFromAuthority, makeCertificateAuthority } from './openssl.ts';

/** Debian's `pebble` package puts both programs here (machine notes). */
const PEBBLE = '/usr/bin/pebble';
const CHALLTESTSRV = '/usr/bin/pebble-challtestsrv';

/** Options of a test ACME server. */
export interface PebbleOptions {
  /** Where Pebble connects for HTTP-01 validation: the data plane's port-80 listener. */
  readonly httpPort: number;
  /** Lifetime of issued certificates (Pebble's certificateValidityPeriod); default Pebble's own (5 years). */
  readonly certificateValiditySeconds?: number;
}

/** A running Pebble with its DNS server (every name resolves to 127.0.0.1). */
export interface Pebble {
  readonly directoryUrl: string;
  /** The CA of Pebble's own HTTPS certificate: what an ACME client must trust to talk to it. */
  readonly caPem: string;
  /** The root that signs issued certificates (from the management interface; new at every start). */
  rootCertificatePem(): Promise<string>;
  close(): Promise<void>;
}

/** Pebble could not be started (binary missing, a port taken, not ready in time). */
export class PebbleStartError extends Error {
  readonly code = 'PEBBLE_START_FAILED';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'PebbleStartError';
  }
}

/**
 * Starts `pebble-challtestsrv` (DNS only, answering every A query with 127.0.0.1 and no AAAA) and `pebble`
 * using it, with a generated CA and certificate for 127.0.0.1, free ports, and validation without the
 * artificial sleeps. Authorizations are never reused, so every order validates through the data plane.
 * Both processes are killed on close() and, as a safety net, when this process exits.
 */
export async function startPebble(options: PebbleOptions): Promise<Pebble> {
  const dir = await mkdtemp(join(tmpdir(), 'portolan-pebble-'));
  const children: Launched[] = [];
  const killAll = (): void => {
    for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  const close = async (): Promise<void> => {
    process.off('exit', killAll);
    await Promise.all(children.map(({ child }) => stopChild(child)));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const ca = await makeCertificateAuthority(dir, 'Portolan test Pebble TLS CA');
    await issueFromAuthority(dir, 'pebble', { dns: ['localhost'], ips: ['127.0.0.1'] });
    const dnsPort = await freeUdpAndTcpPort();
    const [acmePort, managementPort, challManagementPort, tlsPort] = [
      await freeTcpPort(),
      await freeTcpPort(),
      await freeTcpPort(),
      await freeTcpPort(),
    ];
    const config = {
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: join(dir, 'pebble.pem'),
        privateKey: join(dir, 'pebble.key'),
        httpPort: options.httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
        ...(options.certificateValiditySeconds === undefined
          ? {}
          : { certificateValidityPeriod: options.certificateValiditySeconds }),
      },
    };
    await writeFile(join(dir, 'pebble-config.json'), JSON.stringify(config, null, 2));
    children.push(
      launch(
        CHALLTESTSRV,
        [
          '-dns01',
          `127.0.0.1:${dnsPort}`,
          '-http01',
          '',
          '-https01',
          '',
          '-tlsalpn01',
          '',
          '-management',
          `127.0.0.1:${challManagementPort}`,
          '-defaultIPv4',
          '127.0.0.1',
          '-defaultIPv6',
          '',
        ],
        {},
      ),
    );
    children.push(
      launch(PEBBLE, ['-config', join(dir, 'pebble-config.json'), '-dnsserver', `127.0.0.1:${dnsPort}`], {
        PEBBLE_VA_NOSLEEP: '1',
        PEBBLE_WFE_NONCEREJECT: '0',
        PEBBLE_AUTHZREUSE: '0',
      }),
    );
    const directoryUrl = `https://127.0.0.1:${acmePort}/dir`;
    await waitUntilAnswering(directoryUrl, ca.certificatePem, children);
    return {
      directoryUrl,
      caPem: ca.certificatePem,
      rootCertificatePem: () => httpsText(`https://127.0.0.1:${managementPort}/roots/0`, ca.certificatePem),
      close,
    };
  } catch (error) {
    await close();
    throw error instanceof PebbleStartError
      ? error
      : new PebbleStartError('Pebble could not be started', { cause: error });
  }
}

/** A started program and the end of its output. */
interface Launched {
  readonly child: ChildProcess;
  /** The last 4 KB of stdout and stderr, for error messages. */
  tail(): string;
}

function launch(file: string, args: readonly string[], env: Record<string, string>): Launched {
  const child = spawn(file, [...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (text: string): void => {
    tail = (tail + text).slice(-4096);
  };
  child.stdout?.on('data', (c: Buffer) => keep(c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => keep(c.toString('utf8')));
  child.on('error', (error) => keep(`\nspawn ${file} failed: ${error.message}\n`));
  return { child, tail: () => tail };
}

async function waitUntilAnswering(url: string, caPem: string, children: readonly Launched[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const dead = children.find(({ child }) => child.exitCode !== null || child.signalCode !== null);
    if (dead !== undefined)
      throw new PebbleStartError(
        `${dead.child.spawnfile} exited (${dead.child.exitCode ?? dead.child.signalCode}): ${dead.tail()}`,
      );
    try {
      await httpsText(url, caPem);
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new PebbleStartError(
          `Pebble did not answer at ${url} within 15 s: ${children.map((c) => c.tail()).join('\n')}`,
          { cause: error },
        );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** GET over HTTPS trusting `caPem`; rejects on a non-200 answer. */
function httpsText(url: string, caPem: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = get(url, { ca: caPem, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200) resolve(text);
        else reject(new Error(`GET ${url} answered ${res.statusCode}`));
      });
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error(`GET ${url} timed out`)));
  });
}

/** SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
