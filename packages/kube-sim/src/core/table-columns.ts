import { humanDuration } from './human-duration.ts';
import { isJsonObject, type JsonObject } from './json-value.ts';
import type { KubeObject } from './resource-types.ts';

/** One column of a meta.k8s.io/v1 Table. */
export interface TableColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date';
  readonly format: string;
  readonly description: string;
  readonly priority: number;
  /** The cell; null where a custom resource's column path finds nothing (the API server sends null). */
  readonly cell: (obj: KubeObject, nowMs: number) => string | number | null;
}

function obj(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function age(o: KubeObject, nowMs: number): string {
  const created = o.metadata?.creationTimestamp;
  return typeof created === 'string' ? humanDuration(nowMs - Date.parse(created)) : '<unknown>';
}

function col(name: string, cell: TableColumn['cell'], extra: Partial<TableColumn> = {}): TableColumn {
  return { name, type: 'string', format: '', description: `${name} column`, priority: 0, cell, ...extra };
}

const nameCol = col('Name', (o) => o.metadata?.name ?? '', {
  format: 'name',
  description: 'Name must be unique within a namespace.',
});
const ageCol = col('Age', age, {
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
});

function joinMore(values: readonly string[], max: number): string {
  if (values.length === 0) return '<none>';
  const shown = values.slice(0, max).join(',');
  return values.length > max ? `${shown} + ${values.length - max} more...` : shown;
}

function loadBalancerAddresses(status: unknown): string[] {
  return list(obj(obj(status)['loadBalancer'])['ingress']).map((i) => String(obj(i)['ip'] ?? obj(i)['hostname'] ?? ''));
}

function servicePorts(o: KubeObject): string {
  const ports = list(obj(o['spec'])['ports']).map((p) => {
    const port = obj(p);
    const nodePort = port['nodePort'] === undefined ? '' : `:${String(port['nodePort'])}`;
    return `${String(port['port'])}${nodePort}/${String(port['protocol'] ?? 'TCP')}`;
  });
  return ports.length === 0 ? '<none>' : ports.join(',');
}

function serviceExternalIp(o: KubeObject): string {
  const spec = obj(o['spec']);
  const external = list(spec['externalIPs']).map(String);
  if (spec['type'] === 'ExternalName') return String(spec['externalName'] ?? '<none>');
  if (spec['type'] === 'LoadBalancer') {
    const all = [...loadBalancerAddresses(o['status']), ...external];
    return all.length === 0 ? '<pending>' : all.join(',');
  }
  return external.length === 0 ? '<none>' : external.join(',');
}

function selectorText(value: unknown): string {
  const entries = Object.entries(obj(value)).map(([k, v]) => `${k}=${String(v)}`);
  return entries.length === 0 ? '<none>' : entries.join(',');
}

function nodeStatus(o: KubeObject): string {
  const ready = list(obj(o['status'])['conditions'])
    .map(obj)
    .find((c) => c['type'] === 'Ready');
  const text =
    ready === undefined
      ? 'Unknown'
      : ready['status'] === 'True'
        ? 'Ready'
        : ready['status'] === 'False'
          ? 'NotReady'
          : 'Unknown';
  return obj(o['spec'])['unschedulable'] === true ? `${text},SchedulingDisabled` : text;
}

function nodeRoles(o: KubeObject): string {
  const roles = Object.keys(o.metadata?.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length));
  return roles.length === 0 ? '<none>' : roles.sort().join(',');
}

function nodeAddress(o: KubeObject, kind: string): string {
  const found = list(obj(o['status'])['addresses'])
    .map(obj)
    .find((a) => a['type'] === kind);
  return found === undefined ? '<none>' : String(found['address']);
}

function ingressHosts(o: KubeObject): string {
  const hosts = list(obj(o['spec'])['rules']).map((r) => String(obj(r)['host'] ?? '*'));
  return hosts.length === 0 ? '*' : joinMore(hosts, 4);
}

function eventObject(o: KubeObject): string {
  const involved = obj(o['involvedObject']);
  return `${String(involved['kind'] ?? '').toLowerCase()}/${String(involved['name'] ?? '')}`;
}

function eventLastSeen(o: KubeObject, nowMs: number): string {
  const stamp = o['lastTimestamp'] ?? o['eventTime'] ?? o.metadata?.creationTimestamp;
  return typeof stamp === 'string' ? humanDuration(nowMs - Date.parse(stamp)) : '<unknown>';
}

function dataCount(o: KubeObject): number {
  return Object.keys(obj(o['data'])).length + Object.keys(obj(o['binaryData'])).length;
}

const wide = { priority: 1 };

// Custom resources print their CRD's additionalPrinterColumns after Name; each cell is the first value its JSONPath
// finds (an array or object printed as JSON), or null.

const crdNameCol = col('Name', (o) => o.metadata?.name ?? '', {
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names',
});

function printerColumn(
  name: string,
  jsonPath: string,
  cell: TableColumn['cell'],
  extra: Partial<TableColumn> = {},
): TableColumn {
  return col(name, cell, {
    description: `Custom resource definition column (in JSONPath format): ${jsonPath}`,
    ...extra,
  });
}

const crdAgeCol = printerColumn('Age', '.metadata.creationTimestamp', age, { type: 'date' });

/** A string field's value as a cell: text as it is, anything else as JSON, absent as null. */
function printed(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `.status.conditions[?(@.type=="<type>")].status` */
function conditionStatus(type: string): TableColumn {
  return printerColumn(type, `.status.conditions[?(@.type=="${type}")].status`, (o) =>
    printed(
      list(obj(o['status'])['conditions'])
        .map(obj)
        .find((c) => c['type'] === type)?.['status'],
    ),
  );
}

const hostnamesCol = printerColumn('Hostnames', '.spec.hostnames', (o) => printed(obj(o['spec'])['hostnames']));

/** The printer columns of the Gateway API CRDs (v1.3.0). */
const gatewayApiColumns: Readonly<Record<string, readonly TableColumn[]>> = {
  GatewayClass: [
    crdNameCol,
    printerColumn('Controller', '.spec.controllerName', (o) => printed(obj(o['spec'])['controllerName'])),
    conditionStatus('Accepted'),
    crdAgeCol,
    printerColumn('Description', '.spec.description', (o) => printed(obj(o['spec'])['description']), wide),
  ],
  Gateway: [
    crdNameCol,
    printerColumn('Class', '.spec.gatewayClassName', (o) => printed(obj(o['spec'])['gatewayClassName'])),
    printerColumn('Address', '.status.addresses[*].value', (o) =>
      printed(obj(list(obj(o['status'])['addresses'])[0])['value']),
    ),
    conditionStatus('Programmed'),
    crdAgeCol,
  ],
  HTTPRoute: [crdNameCol, hostnamesCol, crdAgeCol],
  GRPCRoute: [crdNameCol, hostnamesCol, crdAgeCol],
  ReferenceGrant: [crdNameCol, crdAgeCol],
  TLSRoute: [crdNameCol, crdAgeCol],
};

/** The server-side printing columns per kind, as `kubectl get` shows them (priority 1 = `-o wide`). */
export const tableColumnsByKind: Readonly<Record<string, readonly TableColumn[]>> = {
  Namespace: [nameCol, col('Status', (o) => String(obj(o['status'])['phase'] ?? '')), ageCol],
  Node: [
    nameCol,
    col('Status', nodeStatus),
    col('Roles', nodeRoles),
    ageCol,
    col('Version', (o) => String(obj(obj(o['status'])['nodeInfo'])['kubeletVersion'] ?? '')),
    col('Internal-IP', (o) => nodeAddress(o, 'InternalIP'), wide),
    col('External-IP', (o) => nodeAddress(o, 'ExternalIP'), wide),
  ],
  Service: [
    nameCol,
    col('Type', (o) => String(obj(o['spec'])['type'] ?? '')),
    col('Cluster-IP', (o) => String(obj(o['spec'])['clusterIP'] ?? '<none>')),
    col('External-IP', serviceExternalIp),
    col('Port(s)', servicePorts),
    ageCol,
    col('Selector', (o) => selectorText(obj(o['spec'])['selector']), wide),
  ],
  Secret: [nameCol, col('Type', (o) => String(o['type'] ?? '')), col('Data', dataCount, { type: 'integer' }), ageCol],
  ConfigMap: [nameCol, col('Data', dataCount, { type: 'integer' }), ageCol],
  Event: [
    col('Last Seen', eventLastSeen),
    col('Type', (o) => String(o['type'] ?? '')),
    col('Reason', (o) => String(o['reason'] ?? '')),
    col('Object', eventObject),
    col('Message', (o) => String(o['message'] ?? '')),
    col('Source', (o) => String(obj(o['source'])['component'] ?? o['reportingComponent'] ?? ''), wide),
    col('Count', (o) => Number(o['count'] ?? 1), { ...wide, type: 'integer' }),
    col('Name', (o) => o.metadata?.name ?? '', { ...wide, format: 'name' }),
  ],
  EndpointSlice: [
    nameCol,
    col('AddressType', (o) => String(o['addressType'] ?? '')),
    col('Ports', (o) => {
      const p = list(o['ports']).map((x) => String(obj(x)['port'] ?? ''));
      return p.length === 0 ? '<unset>' : p.join(',');
    }),
    col('Endpoints', (o) => {
      const a = list(o['endpoints']).flatMap((e) => list(obj(e)['addresses']).map(String));
      return a.length === 0 ? '<unset>' : joinMore(a, 3);
    }),
    ageCol,
  ],
  Ingress: [
    nameCol,
    col('Class', (o) => String(obj(o['spec'])['ingressClassName'] ?? '<none>')),
    col('Hosts', ingressHosts),
    col('Address', (o) => loadBalancerAddresses(o['status']).join(',')),
    col('Ports', (o) => (list(obj(o['spec'])['tls']).length > 0 ? '80, 443' : '80')),
    ageCol,
  ],
  IngressClass: [
    nameCol,
    col('Controller', (o) => String(obj(o['spec'])['controller'] ?? '')),
    col('Parameters', (o) => {
      const p = obj(obj(o['spec'])['parameters']);
      return p['name'] === undefined ? '<none>' : `${String(p['kind'])}/${String(p['name'])}`;
    }),
    ageCol,
  ],
  Lease: [nameCol, col('Holder', (o) => String(obj(o['spec'])['holderIdentity'] ?? '')), ageCol],
  ...gatewayApiColumns,
};
