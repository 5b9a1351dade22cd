import type https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { errorMessage, PortolanError } from '@portolan/errors';
import type { KubeEndpoint } from './kube-api-client.ts';

/** A kubeconfig the watcher cannot use: missing context or cluster, unreadable files, a failing credential plugin. */
export class KubeconfigError extends PortolanError {
  readonly code = 'KUBECONFIG_INVALID';
}

/**
 * The environment variable naming a folder that stands in for `/` when the service-account files are read
 * (`<root>/var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}`): tests run the services
 * in-cluster without a pod. Unset in pods.
 */
export const SERVICE_ACCOUNT_ROOT_ENV = 'PORTOLAN_SERVICE_ACCOUNT_ROOT';

/**
 * Where the API server is and how to authenticate to it, read by @kubernetes/client-node as every Kubernetes tool
 * reads it: a kubeconfig (tokens, token files, client certificates, basic auth, exec credential plugins such as
 * `aws eks get-token` or `gke-gcloud-auth-plugin`, auth-provider plugins such as OIDC), or without one the pod's
 * service account. The watch streams keep their own HTTP transport; credentials are asked of the library per
 * request, so exec tokens and projected service-account tokens are refreshed when they rotate.
 */
export async function loadKubeEndpoint(options: {
  kubeconfig?: string;
  context?: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Prefix of the service-account folder (default: the environment's PORTOLAN_SERVICE_ACCOUNT_ROOT, else none). */
  serviceAccountRoot?: string;
}): Promise<KubeEndpoint> {
  const kc = new KubeConfig();
  const source = options.kubeconfig ?? 'the in-cluster service account';
  const root = options.serviceAccountRoot ?? options.env[SERVICE_ACCOUNT_ROOT_ENV] ?? '';
  if (options.kubeconfig === undefined) loadInCluster(kc, options.env, root);
  else loadFile(kc, options.kubeconfig, options.context);
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new KubeconfigError(`${source}: context "${kc.getCurrentContext()}" has no cluster`);
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch (cause) {
    throw new KubeconfigError(`${source}: cluster "${cluster.name}" has no valid server URL`, { cause });
  }
  // Applied once now, so a kubeconfig whose files or credential plugin fail is refused at start, by name.
  const first = await requestOptions(kc, source);
  return { server, tls: tlsOf(first), headers: async () => headersOf(await requestOptions(kc, source)) };
}

function loadFile(kc: KubeConfig, file: string, context: string | undefined): void {
  try {
    kc.loadFromFile(file);
  } catch (cause) {
    throw new KubeconfigError(`cannot read kubeconfig ${file}: ${errorMessage(cause)}`, { cause });
  }
  const name = context ?? kc.getCurrentContext();
  if (kc.getContextObject(name) === null) throw new KubeconfigError(`kubeconfig ${file} has no context "${name}"`);
  kc.setCurrentContext(name);
}

/** The pod's service account: the library reads KUBERNETES_SERVICE_HOST/PORT from the process environment. */
function loadInCluster(kc: KubeConfig, env: Readonly<Record<string, string | undefined>>, root: string): void {
  if (env['KUBERNETES_SERVICE_HOST'] === undefined || env['KUBERNETES_SERVICE_PORT'] === undefined)
    throw new KubeconfigError('no kubeconfig given and not running in a cluster (KUBERNETES_SERVICE_HOST unset)');
  kc.loadFromCluster(root);
}

async function requestOptions(kc: KubeConfig, source: string): Promise<https.RequestOptions> {
  const options: https.RequestOptions = {};
  try {
    await kc.applyToHTTPSOptions(options);
  } catch (cause) {
    throw new KubeconfigError(`${source}: credentials for the API server failed: ${errorMessage(cause)}`, { cause });
  }
  return options;
}

function tlsOf(o: https.RequestOptions): https.AgentOptions {
  const tls: https.AgentOptions = {};
  if (o.ca !== undefined) tls.ca = o.ca;
  if (o.cert !== undefined) tls.cert = o.cert;
  if (o.key !== undefined) tls.key = o.key;
  if (o.rejectUnauthorized !== undefined) tls.rejectUnauthorized = o.rejectUnauthorized;
  if (o.servername !== undefined) tls.servername = o.servername;
  return tls;
}

/**
 * Request headers: the bearer token the library computed, or basic auth from the kubeconfig's user. Values are
 * trimmed: the library reads token files as they are, and a token file ending in a newline would otherwise make
 * every request fail on an invalid header.
 */
function headersOf(o: https.RequestOptions): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(o.headers ?? {}))
    if (value !== undefined) out[name.toLowerCase()] = String(value).trim();
  if (o.auth !== undefined && o.auth !== null && out['authorization'] === undefined)
    out['authorization'] = `Basic ${Buffer.from(o.auth).toString('base64')}`;
  return out;
}
