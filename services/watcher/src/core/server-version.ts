/** The oldest Kubernetes minor the watcher supports (networking.k8s.io/v1 Ingress and IngressClass, as the vTM integration requires). */
export const MIN_KUBERNETES = { major: 1, minor: 19 } as const;

/** Verdict on the API server's `/version` answer. */
export type ServerVersionCheck =
  | { readonly ok: true; readonly version: string }
  | { readonly ok: false; readonly reason: 'TooOld' | 'Unparseable'; readonly message: string };

/** Checks `/version` (`major`, `minor` such as "31+", `gitVersion`) against 1.19. */
export function checkServerVersion(info: unknown): ServerVersionCheck {
  const v = typeof info === 'object' && info !== null ? (info as Record<string, unknown>) : {};
  const major = Number.parseInt(String(v['major'] ?? ''), 10);
  const minor = Number.parseInt(String(v['minor'] ?? ''), 10);
  const version = typeof v['gitVersion'] === 'string' ? v['gitVersion'] : `${String(v['major'])}.${String(v['minor'])}`;
  if (!Number.isFinite(major) || !Number.isFinite(minor))
    return { ok: false, reason: 'Unparseable', message: `cannot read the server version from ${JSON.stringify(info)}` };
  if (major < MIN_KUBERNETES.major || (major === MIN_KUBERNETES.major && minor < MIN_KUBERNETES.minor)) {
    return {
      ok: false,
      reason: 'TooOld',
      message: `Kubernetes ${version} is older than 1.19: networking.k8s.io/v1 Ingress and IngressClass are missing`,
    };
  }
  return { ok: true, version };
}
