import type { ObjectRef } from '@portolan/desired-state';
import type { TrimmedService } from '@portolan/kube-model';
import { worldKeyString } from '@portolan/kube-model';
import { readIp, readPort, readRaw, readWord, AnnotationIssues } from './annotation-values.ts';
import { creationOrderKey } from './creation-order.ts';
import { issue, type Issue } from './issue.ts';

/** LoadMaster's documented Service mode: the label that opts a Service in, and its value. */
export const LOADMASTER_SERVICE_LABEL = 'kempLB';
/** The annotation naming the pre-existing Virtual Service by its id. */
export const LOADMASTER_VSID_ANNOTATION = 'vsid';
/** Portolan's addition: which Service port feeds the Virtual Service when the Service has several. */
export const LOADMASTER_SERVICE_PORT_ANNOTATION = 'loadmaster.portolan.dev/service-port';

/** Kemp's Service annotations that set Virtual Service parameters; Portolan never modifies a pre-existing VS. */
const VS_PARAMETER_ANNOTATIONS = [
  'addvia',
  'allowhttp2',
  'cache',
  'certfile',
  'checkhost',
  'checkport',
  'checktype',
  'checkurl',
  'errorcode',
  'errorurl',
  'idletime',
  'nickname',
  'persist',
  'schedule',
  'sslacceleration',
  'subnetoriginating',
  'transparent',
  'vstype',
];

/** What one opted-in Service asks of a LoadMaster in Service mode. */
export interface BindingIntent {
  readonly key: string;
  readonly ref: ObjectRef;
  readonly app: string;
  readonly order: string;
  readonly errors: readonly Issue[];
  readonly warnings: readonly Issue[];
  /** The Virtual Service: its id ("12") or "ip:port:prot". Null when rejected. */
  readonly target: string | null;
  readonly port: number | string | null;
  readonly signature: string;
}

/** Whether a Service opts in to LoadMaster Service mode. */
export function isBindingService(svc: TrimmedService): boolean {
  return svc.metadata.labels?.[LOADMASTER_SERVICE_LABEL] === 'Enabled';
}

/** Reads the binding a Service asks for (as LoadMaster documents it: the VS must already exist; only Real Servers are managed). */
export function buildBindingIntent(svc: TrimmedService, cluster: string): BindingIntent {
  const { name, namespace, creationTimestamp } = svc.metadata;
  const ref: ObjectRef = { cluster, kind: 'Service', namespace, name };
  const a = svc.metadata.annotations ?? {};
  const issues = new AnnotationIssues();
  const vsid = readRaw(a, [LOADMASTER_VSID_ANNOTATION]);
  const ip = issues.opt(readIp(a, ['kemp.ax/vsip']));
  const vsPort = issues.opt(readPort(a, ['kemp.ax/vsport']));
  const prot = issues.take(readWord(a, ['kemp.ax/vsprot'], ['tcp', 'udp']), 'tcp');
  let target: string | null = null;
  if (vsid.kind === 'value') {
    if (!/^\d{1,6}$/.test(vsid.value.trim()))
      issues.error('InvalidAnnotation', `vsid must be a Virtual Service id (digits), not "${vsid.value.slice(0, 30)}"`);
    else target = String(Number(vsid.value.trim()));
    if (ip !== null) issues.error('ConflictingAnnotations', 'vsid and kemp.ax/vsip cannot both be set');
  } else if (ip !== null && vsPort !== null) {
    target = `${ip}:${vsPort}:${prot}`;
  } else {
    issues.error(
      'MissingVirtualService',
      'a Service labelled kempLB: Enabled needs a vsid annotation (or kemp.ax/vsip and kemp.ax/vsport) naming an existing Virtual Service',
    );
  }
  const ports = svc.spec.ports ?? [];
  const chosen = readRaw(a, [LOADMASTER_SERVICE_PORT_ANNOTATION]);
  let port: number | string | null = null;
  if (chosen.kind === 'value')
    port = /^\d+$/.test(chosen.value.trim()) ? Number(chosen.value.trim()) : chosen.value.trim();
  else if (ports.length === 1) port = ports[0]!.port ?? null;
  else
    issues.error(
      'AmbiguousServicePort',
      `the Service has ${ports.length} ports; set ${LOADMASTER_SERVICE_PORT_ANNOTATION} to the one that feeds the Virtual Service`,
    );
  const ignored = VS_PARAMETER_ANNOTATIONS.filter((n) => Object.hasOwn(a, n));
  if (ignored.length > 0)
    issues.warn(
      'VirtualServiceParametersIgnored',
      `${ignored.join(', ')}: Portolan adds Real Servers only and never modifies a pre-existing Virtual Service`,
    );
  const rejected = issues.errors.length > 0;
  const body = {
    key: worldKeyString(ref),
    ref,
    app: `${namespace}/${name}`,
    order: creationOrderKey(creationTimestamp, namespace, name, cluster),
    errors: issues.errors,
    warnings: issues.warnings,
    target: rejected ? null : target,
    port: rejected ? null : port,
  };
  return { ...body, signature: JSON.stringify(body) };
}

/** The loss reported to a Service whose Virtual Service is bound by an older Service. */
export function bindingConflict(winner: BindingIntent): Issue {
  return issue(
    'VirtualServiceInUse',
    `Virtual Service ${winner.target} is bound to the older Service ${winner.app} in cluster ${winner.ref.cluster}`,
  );
}
