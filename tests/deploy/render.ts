// Renders the kustomize overlays under deploy/kubernetes with `kubectl kustomize` (no other tool) and checks each
// object against the Kubernetes OpenAPI schemas that kubernetes-models carries (and the Prometheus Operator's).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { kubectlBinary } from '@portolan/infra';

export const deployRoot = path.resolve(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');
export const overlays = ['single-site', 'multi-site'] as const;

/** One rendered object, loosely typed: tests read fields by path. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered manifests are arbitrary YAML
export type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } } & any;

export function render(overlay: string): Manifest[] {
  const text = execFileSync(kubectlBinary(), ['kustomize', path.join(deployRoot, 'overlays', overlay)], {
    encoding: 'utf8',
  });
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => d !== null);
}

/** Throws when `m` does not satisfy its kind's OpenAPI schema; the error names the object and the field. */
export async function validate(m: Manifest): Promise<void> {
  const [group, version] = m.apiVersion.includes('/') ? m.apiVersion.split('/') : ['', m.apiVersion];
  const module =
    group === 'monitoring.coreos.com'
      ? `@kubernetes-models/prometheus-operator/${group}/${version}/${m.kind}`
      : `kubernetes-models/${group === '' ? '' : `${group}/`}${version}/${m.kind}`;
  const models = (await import(module)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = models[m.kind];
  if (Model === undefined) throw new TypeError(`no schema for ${m.apiVersion} ${m.kind}`);
  try {
    new Model(m).validate();
  } catch (cause) {
    throw new TypeError(`${m.kind}/${m.metadata.name}: ${(cause as Error).message}`, { cause });
  }
}

export const byKind = (objects: readonly Manifest[], kind: string): Manifest[] =>
  objects.filter((o) => o.kind === kind);
