/** What a kubeconfig for the simulator names. */
export interface KubeconfigParams {
  readonly server: string;
  readonly caPem: string | null;
  readonly token: string;
  readonly name?: string;
  readonly namespace?: string;
}

/** Renders a kubeconfig (YAML) with one cluster, one token user and one current context. */
export function renderKubeconfig(p: KubeconfigParams): string {
  const name = p.name ?? 'portolan-kube-sim';
  const ca = p.caPem === null ? '' : `\n    certificate-authority-data: ${Buffer.from(p.caPem).toString('base64')}`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${p.server}${ca}`,
    'users:',
    `- name: ${name}`,
    '  user:',
    `    token: ${p.token}`,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${name}`,
    `    namespace: ${p.namespace ?? 'default'}`,
    `current-context: ${name}`,
    'preferences: {}',
    '',
  ].join('\n');
}
