import type { PathMatch } from '@portolan/desired-state';
import type { IngressBackend, TrimmedIngress } from '@portolan/kube-model';
import { canonicalizeHost } from '@portolan/routing';
import { issue, type Issue } from './issue.ts';
import { normalizePath } from '@portolan/routing';

/** A Service backend: the Service name and its port by number or by name. */
export interface BackendRef {
  readonly service: string;
  readonly port: number | string;
}

/** One normalised (host, path) of an Ingress. */
export interface NormalizedRoute {
  readonly host: string;
  readonly path: string;
  readonly match: PathMatch;
  readonly backend: BackendRef;
}

/** The parts of an Ingress the planner uses, with hosts canonical and paths normalised. */
export interface NormalizedIngress {
  readonly routes: readonly NormalizedRoute[];
  readonly defaultBackend: BackendRef | null;
  readonly tls: readonly { readonly hosts: readonly string[]; readonly secretName: string | null }[];
  readonly hasTls: boolean;
  readonly hasRules: boolean;
}

/** Validation outcome: the normalised Ingress (with warnings), or every error found. */
export type ValidationResult =
  | { readonly ok: true; readonly ingress: NormalizedIngress; readonly warnings: readonly Issue[] }
  | { readonly ok: false; readonly errors: readonly Issue[] };

/** Per-object caps: objects beyond them are rejected whole, so one tenant cannot stall planning. */
export const INGRESS_LIMITS = {
  rules: 1000,
  paths: 5000,
  tls: 100,
  hostsPerTls: 100,
  annotationBytes: 256 * 1024,
} as const;

const SERVICE_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PORT_NAME = /^(?=.*[a-z])[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?$/;
const SECRET_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** Validates one Ingress on its own: never throws; a bad field rejects this Ingress only. */
export function validateIngress(ingress: TrimmedIngress): ValidationResult {
  const errors: Issue[] = [];
  const warnings: Issue[] = [];
  const spec = ingress.spec;
  const rules = spec.rules ?? [];
  const tlsList = spec.tls ?? [];
  const pathCount = rules.reduce((n, r) => n + (r.http?.paths?.length ?? 0), 0);
  const annotationBytes = Object.entries(ingress.metadata.annotations ?? {}).reduce(
    (n, [k, v]) => n + k.length + v.length,
    0,
  );
  if (
    rules.length > INGRESS_LIMITS.rules ||
    pathCount > INGRESS_LIMITS.paths ||
    tlsList.length > INGRESS_LIMITS.tls ||
    annotationBytes > INGRESS_LIMITS.annotationBytes
  ) {
    return {
      ok: false,
      errors: [
        issue(
          'TooLarge',
          `Ingress exceeds the limits (${INGRESS_LIMITS.rules} rules, ${INGRESS_LIMITS.paths} paths, ${INGRESS_LIMITS.tls} TLS entries, ${INGRESS_LIMITS.annotationBytes} bytes of annotations)`,
        ),
      ],
    };
  }
  const routes = validateRules(rules, errors, warnings);
  const defaultBackend =
    spec.defaultBackend === undefined ? null : validateBackend(spec.defaultBackend, 'spec.defaultBackend', errors);
  const tls = validateTls(tlsList, errors);
  if (errors.length === 0 && routes.size === 0 && defaultBackend === null)
    errors.push(issue('NoBackends', 'the Ingress has neither rules with paths nor a defaultBackend'));
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    ingress: { routes: [...routes.values()], defaultBackend, tls, hasTls: tls.length > 0, hasRules: rules.length > 0 },
    warnings,
  };
}

/** The rules' routes, one per (host, path, match): the first backend listed wins, a later different one warns. */
function validateRules(
  rules: NonNullable<TrimmedIngress['spec']['rules']>,
  errors: Issue[],
  warnings: Issue[],
): Map<string, NormalizedRoute> {
  const routes = new Map<string, NormalizedRoute>();
  rules.forEach((rule, i) => {
    const host = canonicalizeHost(rule.host ?? '');
    if (!host.ok) return void errors.push(issue(host.reason, `spec.rules[${i}].host: ${host.message}`));
    if (rule.http === undefined || (rule.http.paths ?? []).length === 0)
      return void warnings.push(issue('RuleWithoutPaths', `spec.rules[${i}] has no paths; ignored`));
    (rule.http.paths ?? []).forEach((p, j) => {
      const where = `spec.rules[${i}].http.paths[${j}]`;
      const path = normalizePath(p.path, p.pathType);
      if (!path.ok) return void errors.push(issue(path.reason, `${where}: ${path.message}`));
      const backend = validateBackend(p.backend, `${where}.backend`, errors);
      if (backend === null) return;
      const key = `${host.host}\u0000${path.path}\u0000${path.match}`;
      const existing = routes.get(key);
      if (existing === undefined) routes.set(key, { host: host.host, path: path.path, match: path.match, backend });
      else if (existing.backend.service !== backend.service || existing.backend.port !== backend.port) {
        warnings.push(
          issue(
            'DuplicatePath',
            `${where}: ${host.host || '*'}${path.path} (${path.match}) is listed twice; the first backend is used`,
          ),
        );
      }
    });
  });
  return routes;
}

/** The TLS entries with their hosts canonicalised (bounded per entry) and their Secret names checked. */
function validateTls(tlsList: NonNullable<TrimmedIngress['spec']['tls']>, errors: Issue[]): NormalizedIngress['tls'] {
  return tlsList.map((t, i) => {
    if ((t.hosts?.length ?? 0) > INGRESS_LIMITS.hostsPerTls)
      errors.push(issue('TooLarge', `spec.tls[${i}] lists more than ${INGRESS_LIMITS.hostsPerTls} hosts`));
    const hosts = (t.hosts ?? []).slice(0, INGRESS_LIMITS.hostsPerTls).flatMap((h, j) => {
      const c = canonicalizeHost(h);
      if (c.ok) return [c.host];
      errors.push(issue(c.reason, `spec.tls[${i}].hosts[${j}]: ${c.message}`));
      return [];
    });
    const secretName = t.secretName === undefined || t.secretName === '' ? null : t.secretName;
    if (secretName !== null && !SECRET_NAME.test(secretName))
      errors.push(
        issue('InvalidSecretName', `spec.tls[${i}].secretName "${secretName.slice(0, 60)}" is not a valid name`),
      );
    return { hosts: [...new Set(hosts)].sort(), secretName };
  });
}

function validateBackend(b: IngressBackend | undefined, where: string, errors: Issue[]): BackendRef | null {
  if (b?.resource !== undefined) {
    errors.push(issue('ResourceBackendUnsupported', `${where}: resource backends are not supported; use a Service`));
    return null;
  }
  const name = b?.service?.name;
  if (name === undefined || !SERVICE_NAME.test(name)) {
    errors.push(
      issue(
        'InvalidBackend',
        `${where}.service.name ${name === undefined ? 'is missing' : `"${name.slice(0, 70)}" is not a Service name`}`,
      ),
    );
    return null;
  }
  const port = b?.service?.port;
  const hasNumber = port?.number !== undefined;
  const hasName = port?.name !== undefined && port.name !== '';
  if (hasNumber === hasName) {
    errors.push(issue('InvalidBackend', `${where}.service.port needs exactly one of number or name`));
    return null;
  }
  if (hasNumber) {
    const n = port!.number!;
    if (n >= 1 && n <= 65535) return { service: name, port: n };
    errors.push(issue('InvalidBackend', `${where}.service.port.number ${n} is not 1-65535`));
    return null;
  }
  if (PORT_NAME.test(port!.name!)) return { service: name, port: port!.name! };
  errors.push(issue('InvalidBackend', `${where}.service.port.name "${port!.name!.slice(0, 30)}" is not a port name`));
  return null;
}
