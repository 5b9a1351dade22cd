import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type https from 'node:https';
import { parse as parseYaml } from 'yaml';
import type { KubeEndpoint } from './kube-api-client.ts';

/** A kubeconfig the watcher cannot use: missing context, unsupported auth (exec plugins), unreadable files. */
export class KubeconfigError extends Error {
  readonly code = 'KUBECONFIG_INVALID';
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

type Named<T> = { name?: string } & T;
interface Kubeconfig {
  'current-context'?: string;
  clusters?: Named<{ cluster?: Record<string, unknown> }>[];
  users?: Named<{ user?: Record<string, unknown> }>[];
  contexts?: Named<{ context?: { cluster?: string; user?: string } }>[];
}

/**
 * Reads a kubeconfig (token, token file, client certificate, basic auth; CA by file or data) or, without one, the
 * in-cluster service account. A small reader instead of @kubernetes/client-node keeps ~90 MiB of generated API
 * models out of the watcher's memory. Exec and auth-provider plugins are refused with a clear error.
 */
export async function loadKubeEndpoint(options: {
  kubeconfig?: string;
  context?: string;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<KubeEndpoint> {
  if (options.kubeconfig === undefined) return inCluster(options.env);
  const file = options.kubeconfig;
  const base = path.dirname(path.resolve(file));
  let doc: Kubeconfig;
  try {
    doc = parseYaml(await readFile(file, 'utf8')) as Kubeconfig;
  } catch (cause) {
    throw new KubeconfigError(`cannot read kubeconfig ${file}: ${(cause as Error).message}`, { cause });
  }
  const contextName = options.context ?? doc['current-context'];
  const context = doc.contexts?.find((c) => c.name === contextName)?.context;
  if (context === undefined) throw new KubeconfigError(`kubeconfig ${file} has no context "${String(contextName)}"`);
  const cluster = doc.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (cluster === undefined || typeof cluster['server'] !== 'string')
    throw new KubeconfigError(`kubeconfig ${file}: cluster "${String(context.cluster)}" has no server`);
  const user = doc.users?.find((u) => u.name === context.user)?.user ?? {};
  if (user['exec'] !== undefined || user['auth-provider'] !== undefined)
    throw new KubeconfigError(
      `kubeconfig ${file}: user "${String(context.user)}" needs an exec or auth-provider plugin, which the watcher does not run; use a token or client certificate`,
    );
  const tls: https.AgentOptions = {};
  const ca = await material(cluster, 'certificate-authority', base);
  if (ca !== undefined) tls.ca = ca;
  if (cluster['insecure-skip-tls-verify'] === true) tls.rejectUnauthorized = false;
  if (typeof cluster['tls-server-name'] === 'string') tls.servername = cluster['tls-server-name'];
  const cert = await material(user, 'client-certificate', base);
  const key = await material(user, 'client-key', base);
  if (cert !== undefined) tls.cert = cert;
  if (key !== undefined) tls.key = key;
  const token = typeof user['token'] === 'string' ? user['token'] : undefined;
  const tokenFile = typeof user['tokenFile'] === 'string' ? path.resolve(base, user['tokenFile']) : undefined;
  const basic =
    typeof user['username'] === 'string'
      ? `Basic ${Buffer.from(`${user['username']}:${String(user['password'] ?? '')}`).toString('base64')}`
      : undefined;
  return { server: new URL(cluster['server']), tls, headers: authHeaders(token, tokenFile, basic) };
}

function inCluster(env: Readonly<Record<string, string | undefined>>): Promise<KubeEndpoint> {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (host === undefined || port === undefined)
    throw new KubeconfigError('no kubeconfig given and not running in a cluster (KUBERNETES_SERVICE_HOST unset)');
  return readFile(path.join(SERVICE_ACCOUNT_DIR, 'ca.crt')).then(
    (ca) => ({
      server: new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`),
      tls: { ca },
      headers: authHeaders(undefined, path.join(SERVICE_ACCOUNT_DIR, 'token'), undefined),
    }),
    (cause: unknown) => {
      throw new KubeconfigError(`cannot read the service account CA: ${(cause as Error).message}`, { cause });
    },
  );
}

/** Bearer token (a token file is re-read at most once a minute: projected tokens rotate), or basic auth. */
function authHeaders(
  token: string | undefined,
  tokenFile: string | undefined,
  basic: string | undefined,
): () => Promise<Record<string, string>> {
  let cached: { value: string; at: number } | null = null;
  return async (): Promise<Record<string, string>> => {
    if (token !== undefined) return { authorization: `Bearer ${token}` };
    if (tokenFile !== undefined) {
      if (cached === null || Date.now() - cached.at > 60_000)
        cached = { value: (await readFile(tokenFile, 'utf8')).trim(), at: Date.now() };
      return { authorization: `Bearer ${cached.value}` };
    }
    return basic === undefined ? {} : { authorization: basic };
  };
}

async function material(section: Record<string, unknown>, field: string, base: string): Promise<Buffer | undefined> {
  const data = section[`${field}-data`];
  if (typeof data === 'string') return Buffer.from(data, 'base64');
  const file = section[field];
  if (typeof file !== 'string') return undefined;
  try {
    return await readFile(path.resolve(base, file));
  } catch (cause) {
    throw new KubeconfigError(`cannot read ${field} ${file}: ${(cause as Error).message}`, { cause });
  }
}
