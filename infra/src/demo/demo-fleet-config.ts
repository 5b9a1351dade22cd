import type { HaStackEndpoints } from '../ha-stack-config.ts';
import type { StackEndpoints } from '../stack-config.ts';
import type { DemoLayout } from './demo-files.ts';
import { demoTrafficIpGroup } from './demo-traffic-ip-group.ts';

/** One appliance of a demo pipeline and the applier replicas that serve it. */
export interface DemoAppliance {
  readonly name: string;
  readonly driver: 'haproxy' | 'vtm' | 'loadmaster';
  /** IngressClass `spec.controller` values it answers. */
  readonly ingressControllers: readonly string[];
  /** GatewayClass `spec.controllerName` values it answers (default: the fleet config's, portolan.dev/gateway-controller). */
  readonly gatewayControllers?: readonly string[];
  /** Addresses given one each to Gateways that ask for none (the fleet config's `gatewayAddresses`); default none. */
  readonly gatewayAddresses?: readonly string[];
  /** Applier replica ids: one process each, electing one leader. */
  readonly replicas: readonly string[];
  /** LoadMaster only: Ingress mode (default; LoadMaster's Ingress controller's documented behaviour) or Service mode. */
  readonly mode?: 'ingress' | 'service';
  readonly drift?: { readonly intervalSeconds: number; readonly policy: 'correct' | 'report' };
  /** HAProxy only: spare backends per mode (the fleet config's `spareBackends`; unset: the driver's default). */
  readonly spareBackends?: number;
}

/** `portolan up`'s appliances: HAProxy `edge` (leader and follower), the vTM and the LoadMaster emulators. */
export const demoAppliances: readonly DemoAppliance[] = [
  {
    name: 'edge',
    driver: 'haproxy',
    ingressControllers: ['portolan.dev/ingress-controller'],
    replicas: ['edge-a', 'edge-b'],
  },
  // The sample Gateway is HAProxy's: the emulators answer GatewayClasses of their own controller names.
  {
    name: 'vtm',
    driver: 'vtm',
    ingressControllers: ['pulsesecure.net/vtm-ingress-controller'],
    gatewayControllers: ['portolan.dev/vtm-gateway'],
    replicas: ['vtm-a'],
  },
  {
    name: 'loadmaster',
    driver: 'loadmaster',
    ingressControllers: ['portolan.dev/loadmaster'],
    gatewayControllers: ['portolan.dev/loadmaster-gateway'],
    replicas: ['loadmaster-a'],
    mode: 'ingress',
  },
];

/** Where the HAProxy of the pipeline keeps its files, and the ports its listeners bind. */
export interface DemoHaproxy {
  readonly dir: string;
  readonly masterSocket: string;
  readonly httpPort: number;
  readonly httpsPort: number;
}

/** Everything the demo fleet config is written from. */
export interface DemoFleetInputs {
  readonly layout: DemoLayout;
  readonly appliances: readonly DemoAppliance[];
  /** An HA stack's endpoints also list every node: the fleet config then names them one by one. */
  readonly endpoints: StackEndpoints & Partial<Pick<HaStackEndpoints, 'natsUrls' | 'sentinels' | 'sentinelName'>>;
  readonly haproxy: DemoHaproxy;
  /** Stream name and subject prefix (distinct values let several pipelines share one NATS); stream replicas. */
  readonly bus?: { readonly stream?: string; readonly subjectPrefix?: string; readonly replicas?: number };
  readonly leases?: { readonly ttlMs?: number; readonly renewEveryMs?: number; readonly retryEveryMs?: number };
  /** Watcher heartbeat period (default 2 s). */
  readonly heartbeatSeconds?: number;
  /** The address the vTM and LoadMaster emulators listen on (default 127.0.0.1). */
  readonly applianceHost?: string;
  /** The console's listen address and the tokens it grants (hashes only). */
  readonly console?: {
    readonly listen: string;
    readonly tokens: readonly {
      readonly name: string;
      readonly role: 'viewer' | 'operator';
      readonly sha256: string;
    }[];
  };
}

/** The name of the demo's single cluster (the simulator). */
export const demoCluster = 'local';

/** The fleet config YAML of a demo pipeline (strings JSON-quoted: valid YAML whatever the paths hold). */
export function demoFleetConfig(inputs: DemoFleetInputs): string {
  const q = (s: string): string => JSON.stringify(s);
  const { layout, endpoints } = inputs;
  const bus = [
    `  url: ${endpoints.natsUrls === undefined ? q(endpoints.natsUrl) : `[${endpoints.natsUrls.map(q).join(', ')}]`}`,
    ...(inputs.bus?.stream ? [`  stream: ${q(inputs.bus.stream)}`] : []),
    ...(inputs.bus?.subjectPrefix ? [`  subjectPrefix: ${q(inputs.bus.subjectPrefix)}`] : []),
    ...(inputs.bus?.replicas ? [`  replicas: ${inputs.bus.replicas}`] : []),
  ];
  const leases = [
    ...leaseStoreYaml(endpoints),
    ...Object.entries(inputs.leases ?? {})
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `  ${k}: ${String(v)}`),
  ];
  return `# Written by the Portolan demo launcher (\`portolan up\`, or an end-to-end test).
version: 1
clusters:
  - name: ${demoCluster}
    kubeconfig: ${q(layout.kubeconfig)}
    namespaces: all-except-kube-system
    watch: { heartbeatSeconds: ${inputs.heartbeatSeconds ?? 2} }
appliances:
${inputs.appliances.map((a) => applianceYaml(a, inputs)).join('')}bus:
${bus.join('\n')}
store:
  url: ${q(endpoints.postgresUrl)}
leases:
${leases.join('\n')}
secrets:
  keyFile: ${q(layout.keyFile)}
${consoleYaml(inputs.console)}`;
}

/** The console section: where it listens and the token hashes it accepts. */
function consoleYaml(section: DemoFleetInputs['console']): string {
  if (section === undefined) return '';
  const tokens = section.tokens.map((t) => `    - { name: ${t.name}, role: ${t.role}, sha256: ${t.sha256} }\n`);
  return `console:\n  listen: ${JSON.stringify(section.listen)}\n  tokens:\n${tokens.join('')}`;
}

/** The Sentinels one by one when the endpoints list them, else the Redis URL. */
function leaseStoreYaml(endpoints: DemoFleetInputs['endpoints']): string[] {
  const q = (s: string): string => JSON.stringify(s);
  if (endpoints.sentinels === undefined) return [`  redisUrl: ${q(endpoints.redisUrl)}`];
  return [
    `  sentinels: [${endpoints.sentinels.map((s) => `{ host: ${q(s.host)}, port: ${s.port} }`).join(', ')}]`,
    `  sentinelName: ${q(endpoints.sentinelName ?? 'portolan')}`,
  ];
}

function applianceYaml(a: DemoAppliance, inputs: DemoFleetInputs): string {
  const q = (s: string): string => JSON.stringify(s);
  const { layout, haproxy } = inputs;
  const head = `  - name: ${a.name}
    driver: ${a.driver}
    ingressControllers: [${a.ingressControllers.map(q).join(', ')}]
${a.gatewayControllers ? `    gatewayControllers: [${a.gatewayControllers.map(q).join(', ')}]\n` : ''}${a.gatewayAddresses ? `    gatewayAddresses: [${a.gatewayAddresses.map(q).join(', ')}]\n` : ''}${a.drift ? `    drift: { intervalSeconds: ${a.drift.intervalSeconds}, policy: ${a.drift.policy} }\n` : ''}`;
  switch (a.driver) {
    case 'haproxy':
      return `${head}    haproxy:
      configDir: ${q(haproxy.dir)}
      masterSocket: ${q(haproxy.masterSocket)}
      address: 127.0.0.1
      httpPort: ${haproxy.httpPort}
      httpsPort: ${haproxy.httpsPort}
${a.spareBackends === undefined ? '' : `      spareBackends: ${a.spareBackends}\n`}`;
    case 'vtm':
      return `${head}    vtm:
      url: http://${inputs.applianceHost ?? '127.0.0.1'}:${layout.ports.vtm}
      username: admin
      passwordFile: ${q(layout.vtmPasswordFile)}
      defaultTrafficIpGroup: ${demoTrafficIpGroup.name}
`;
    case 'loadmaster':
      return `${head}    loadmaster:
      url: https://${inputs.applianceHost ?? '127.0.0.1'}:${layout.ports.loadmaster}
      username: bal
      passwordFile: ${q(layout.loadmasterPasswordFile)}
      mode: ${a.mode ?? 'ingress'}
      insecureTls: true
      defaultAddress: 127.0.0.1
`;
  }
}
