import { z } from 'zod';
import { busUrl, leases } from './engine-endpoints.ts';

/**
 * The fleet config schema (docs/fleet-config.md): one YAML file naming clusters, appliances, bus, store and leases.
 * Every object is strict, so a typo in a key is an error that names the key, not a silently ignored setting.
 */

const name = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a DNS label: lower-case letters, digits and "-", at most 63');

const namespaceScope = z.union([
  z.literal('all-except-kube-system'),
  z.string().min(1),
  z.array(z.string().min(1)).min(1),
]);

const cluster = z.strictObject({
  name,
  /** Path to a kubeconfig; omitted means in-cluster configuration. */
  kubeconfig: z.string().min(1).optional(),
  context: z.string().min(1).optional(),
  namespaces: namespaceScope.default('all-except-kube-system'),
  /** Label selector for TLS Secrets the watcher follows (as the vTM integration documents). */
  secretLabelSelector: z.string().default(''),
  /** Weight of this cluster's members in multi-cluster pools. */
  weight: z.number().int().min(1).max(100).default(1),
  /** A watcher heartbeat older than this makes the cluster stale: planned fail-static, not dropped. */
  staleAfterSeconds: z.number().int().min(5).default(60),
  watch: z
    .strictObject({
      /** No event or bookmark for this long → restart the watch and relist. */
      stallSeconds: z.number().min(1).default(60),
      /** Periodic relist even when healthy (repairs dropped events). */
      relistSeconds: z.number().min(1).default(300),
      /** Upper bound of one watch request, randomised between 1× and 2×. */
      watchTimeoutSeconds: z.number().int().min(1).default(300),
      heartbeatSeconds: z.number().min(0.1).default(5),
    })
    .prefault({}),
});

const haproxy = z.strictObject({
  /** Directory holding haproxy.cfg, maps, certificates and the server-state file. */
  configDir: z.string().min(1),
  masterSocket: z.string().min(1),
  /** Address HAProxy listens on, and its HTTP/HTTPS ports. */
  address: z.string().default('127.0.0.1'),
  httpPort: z.number().int().min(1).max(65535).default(8080),
  httpsPort: z.number().int().min(1).max(65535).default(8443),
  binary: z.string().default('haproxy'),
  /** Spare server slots kept per backend so scale-ups need no reload. */
  minFreeSlots: z.number().int().min(0).default(4),
  slotIncrement: z.number().int().min(1).default(8),
  /**
   * Spare backends kept per mode, so a new pool is served through the Runtime API (bridged into a spare) instead of
   * by a reload; 0 turns bridging off. No default here, so the config hash of fleets that do not set it is
   * unchanged: the driver's default is 16.
   */
  spareBackends: z.number().int().min(0).max(1024).optional(),
  /** Server slots per spare backend: a new pool with more members waits for a reload. The driver's default is 16. */
  spareSlots: z.number().int().min(1).max(1024).optional(),
  /**
   * haproxy.cfg's server lines are written at most this long after the Runtime API applied an endpoint change (one
   * write for every change meanwhile; 0 writes after each change). No default here, so the config hash of fleets
   * that do not set it is unchanged: the driver's default is 1000.
   */
  serverLinesWriteDelayMs: z.number().int().min(0).max(60_000).optional(),
  /**
   * Whether a TLS host's plain HTTP answers 308 to HTTPS when its Ingress carries no `portolan.dev/ssl-redirect`
   * (the annotation overrides it per Ingress). No default here, so the config hash of fleets that do not set it is
   * unchanged: absent means false.
   */
  sslRedirectDefault: z.boolean().optional(),
});

const vtm = z.strictObject({
  url: z.url(),
  username: z.string().min(1),
  /** File holding the password; credentials never sit in the fleet config itself. */
  passwordFile: z.string().min(1),
  apiVersion: z.string().default('8.3'),
  /** Traffic IP group used when an Ingress names no address (vTM's documented default group); none → such Ingresses are rejected. */
  defaultTrafficIpGroup: z.string().optional(),
  /** Traffic managers that host the traffic IP groups the driver creates; omitted → every traffic manager of the cluster. */
  machines: z.array(z.string().min(1)).min(1).optional(),
  /** Trust the appliance's self-signed certificate (local emulators only). */
  insecureTls: z.boolean().default(false),
  acme: z
    .strictObject({
      directoryUrl: z.url(),
      email: z.string().default(''),
      caFile: z.string().optional(),
      renewBeforeDays: z.number().int().min(1).default(8),
    })
    .optional(),
});

const loadmaster = z.strictObject({
  url: z.url(),
  username: z.string().min(1).optional(),
  passwordFile: z.string().min(1).optional(),
  apiKeyFile: z.string().min(1).optional(),
  mode: z.enum(['ingress', 'service']).default('ingress'),
  insecureTls: z.boolean().default(false),
  /** The appliance drops connections above 30 calls in 3 s; stay under it. */
  maxCallsPer3s: z.number().int().min(1).max(30).default(25),
  /** Default VS address for Ingress mode when the Ingress names none. */
  defaultAddress: z.string().optional(),
});

const appliance = z
  .strictObject({
    name,
    driver: z.enum(['haproxy', 'vtm', 'loadmaster']),
    /** Leader group: appliers of one group elect one writer. Defaults to the appliance name. */
    group: name.optional(),
    /** IngressClass spec.controller values this appliance answers. */
    ingressControllers: z.array(z.string().min(1)).min(1).default(['portolan.dev/ingress-controller']),
    /**
     * GatewayClass spec.controllerName values this appliance answers; `portolan.dev/gateway-controller` when unset.
     * No default here, so the config hash of fleets that do not set it is unchanged.
     */
    gatewayControllers: z.array(z.string().min(1)).min(1).optional(),
    /**
     * Addresses the appliance gives Gateways that ask for none in spec.addresses, one each (without it they share
     * its default address, where one port serves one Gateway). No default, so unset configs keep their hash.
     */
    gatewayAddresses: z.array(z.string().min(1)).optional(),
    /** Clusters whose objects this appliance serves; omitted means all. */
    clusters: z.array(name).optional(),
    backendMode: z.enum(['endpoints', 'nodeport']).default('endpoints'),
    enableCustomizations: z.boolean().default(false),
    enableTrafficScript: z.boolean().default(false),
    drift: z
      .strictObject({
        intervalSeconds: z.number().min(1).default(60),
        policy: z.enum(['correct', 'report']).default('correct'),
      })
      .prefault({}),
    safety: z
      .strictObject({
        /**
         * Removals no explicit delete explains (a relist that no longer lists objects) are held when they take more
         * than this fraction of a cluster's hosts or members of one kind...
         */
        maxRemovalFraction: z.number().min(0).max(1).default(0.3),
        /** ...and at least this many hosts or members. */
        minRemovals: z.number().int().min(1).default(5),
        /** A later relist still lacking a held object confirms its removal once this long has passed since the hold. */
        relistConfirmSeconds: z.number().min(0).default(300),
      })
      .prefault({}),
    /**
     * Which namespaces may serve routes on a host: `shared` (any, as Kubernetes has it; sharing is reported on both
     * Ingresses), `first-namespace` (the namespace whose Ingress claimed the host first), or `allow-list`
     * (`hostAllowList`, unlisted hosts as first-namespace).
     */
    hostOwnership: z.enum(['shared', 'first-namespace', 'allow-list']).optional(),
    /** For `allow-list`: host (or `*.suffix`) → the namespaces that may serve routes on it. */
    hostAllowList: z
      .record(z.string().regex(/^(\*\.)?[A-Za-z0-9.-]+$/, 'a host name or *.suffix'), z.array(z.string().min(1)).min(1))
      .optional(),
    haproxy: haproxy.optional(),
    vtm: vtm.optional(),
    loadmaster: loadmaster.optional(),
  })
  .superRefine((a, ctx) => {
    if (a.hostOwnership === 'allow-list' && a.hostAllowList === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['hostAllowList'],
        message: 'hostOwnership allow-list needs a hostAllowList',
      });
    if (a.hostOwnership !== 'allow-list' && a.hostAllowList !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['hostAllowList'],
        message: 'hostAllowList applies only to hostOwnership: allow-list',
      });
    const section = a[a.driver];
    if (section === undefined) {
      ctx.addIssue({ code: 'custom', path: [a.driver], message: `driver "${a.driver}" needs a "${a.driver}" section` });
    }
    for (const other of ['haproxy', 'vtm', 'loadmaster'] as const) {
      if (other !== a.driver && a[other] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [other],
          message: `section "${other}" does not apply to driver "${a.driver}"`,
        });
      }
    }
  });

/** The audit console (`portolan console`): where it listens, and who may call it. */
const consoleSection = z.strictObject({
  /** host:port; 127.0.0.1 keeps it local, 0.0.0.0 serves every interface. */
  listen: z
    .string()
    .regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'host:port')
    .default('127.0.0.1:8480'),
  /** PEM files; with them the console serves HTTPS only. */
  tls: z.strictObject({ certFile: z.string().min(1), keyFile: z.string().min(1) }).optional(),
  /** Bearer tokens by the SHA-256 of the token (`portolan console token` makes one); the token itself is never kept. */
  tokens: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$/, 'a name: letters, digits, ".", "_", "@", "-"'),
        role: z.enum(['viewer', 'operator']),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, 'the hex SHA-256 of the token'),
      }),
    )
    .default([]),
  /** Tokens not in `tokens` are reviewed by this cluster's API server (TokenReview); groups map to roles. */
  tokenReview: z
    .strictObject({
      cluster: name,
      operatorGroups: z.array(z.string().min(1)).default([]),
      viewerGroups: z.array(z.string().min(1)).default([]),
      audiences: z.array(z.string().min(1)).default([]),
      cacheSeconds: z.number().min(0).max(3600).default(30),
    })
    .optional(),
});

/** The whole fleet config. */
export const fleetConfigSchema = z
  .strictObject({
    version: z.literal(1),
    clusters: z.array(cluster).min(1),
    appliances: z.array(appliance).min(1),
    bus: z.strictObject({
      url: busUrl,
      stream: z
        .string()
        .regex(/^[A-Za-z0-9_-]+$/)
        .default('PORTOLAN'),
      replicas: z.number().int().min(1).max(5).default(1),
      maxPayloadBytes: z
        .number()
        .int()
        .min(1024)
        .default(1024 * 1024),
      /** Prepended to every subject, so several deployments can share one NATS. */
      subjectPrefix: z
        .string()
        .regex(/^([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)?$/)
        .default(''),
    }),
    /** A Postgres URL; libpq's multi-host form (`postgres://u@h1:p1,h2:p2/db`) names a primary and its standbys. */
    store: z.strictObject({ url: z.string().min(1) }),
    leases,
    secrets: z.strictObject({
      /** File with a 32-byte key (hex or base64) sealing Secret data on the bus and at rest. */
      keyFile: z.string().min(1),
      keyId: z.string().min(1).default('k1'),
    }),
    console: consoleSection.optional(),
  })
  .superRefine((c, ctx) => {
    unique(
      c.clusters.map((x) => x.name),
      ['clusters'],
      ctx,
    );
    unique(
      c.appliances.map((x) => x.name),
      ['appliances'],
      ctx,
    );
    const known = new Set(c.clusters.map((x) => x.name));
    consoleRules(c.console, known, ctx);
    c.appliances.forEach((a, i) =>
      a.clusters?.forEach((cl, j) => {
        if (!known.has(cl))
          ctx.addIssue({ code: 'custom', path: ['appliances', i, 'clusters', j], message: `unknown cluster "${cl}"` });
      }),
    );
  });

/** Token names and hashes are unique; a TokenReview names a known cluster. */
function consoleRules(
  section: z.output<typeof consoleSection> | undefined,
  clusters: ReadonlySet<string>,
  ctx: z.RefinementCtx,
): void {
  if (section === undefined) return;
  unique(
    section.tokens.map((t) => t.name),
    ['console', 'tokens'],
    ctx,
  );
  const hashes = new Set<string>();
  section.tokens.forEach((t, i) => {
    if (hashes.has(t.sha256))
      ctx.addIssue({ code: 'custom', path: ['console', 'tokens', i, 'sha256'], message: 'the same token twice' });
    hashes.add(t.sha256);
  });
  const review = section.tokenReview;
  if (review !== undefined && !clusters.has(review.cluster))
    ctx.addIssue({
      code: 'custom',
      path: ['console', 'tokenReview', 'cluster'],
      message: `unknown cluster "${review.cluster}"`,
    });
}

function unique(names: string[], path: (string | number)[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  names.forEach((n, i) => {
    if (seen.has(n)) ctx.addIssue({ code: 'custom', path: [...path, i, 'name'], message: `duplicate name "${n}"` });
    seen.add(n);
  });
}

/** A validated fleet config with defaults filled in. */
export type FleetConfig = z.output<typeof fleetConfigSchema>;
/** One cluster entry. */
export type ClusterConfig = FleetConfig['clusters'][number];
/** One appliance entry. */
export type ApplianceConfig = FleetConfig['appliances'][number];
export type ConsoleConfig = NonNullable<FleetConfig['console']>;
