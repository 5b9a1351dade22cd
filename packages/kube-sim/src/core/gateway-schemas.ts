// The schemas of GatewayClass, Gateway and ReferenceGrant as the Gateway API v1.3.0 standard-channel CRDs declare
// them (v1 and v1beta1 of GatewayClass and Gateway are the same schema), with their defaults and CEL rules.
import {
  conditions,
  controllerName,
  gatewayGroup,
  group,
  hostname,
  kind,
  labelValue,
  namespaceName,
  objectName,
  portNumber,
  sectionName,
  stringOptions,
} from './gateway-api-common.ts';
import { field } from './schema-validation.ts';
import {
  arr,
  asList,
  asObject,
  existsOne,
  has,
  immutable,
  int,
  map,
  obj,
  rule,
  str,
  unsetOrEmpty,
  type SchemaNode,
} from './structural-schema.ts';

/** The condition a controller has not yet replaced, as the CRDs default it. */
function pending(type: string): Record<string, string> {
  return {
    lastTransitionTime: '1970-01-01T00:00:00Z',
    message: 'Waiting for controller',
    reason: 'Pending',
    status: 'Unknown',
    type,
  };
}

/** The root of a custom resource: type meta, metadata (validated as ObjectMeta, not by the schema), spec, status. */
export function resourceRoot(spec: SchemaNode, status: SchemaNode | undefined, specRequired: boolean): SchemaNode {
  return obj(
    {
      apiVersion: str(),
      kind: str(),
      metadata: { type: 'object' },
      spec,
      ...(status === undefined ? {} : { status }),
    },
    specRequired ? { required: ['spec'] } : {},
  );
}

const localParametersRef = obj(
  { group: group(), kind: kind(), name: objectName, namespace: namespaceName },
  { required: ['group', 'kind', 'name'] },
);

const gatewayClassConditions = [pending('Accepted')];

/** GatewayClass: cluster-scoped; its controllerName cannot change. */
export const gatewayClassSchema = resourceRoot(
  obj(
    {
      controllerName: { ...controllerName, rules: [immutable] },
      description: str({ maxLength: 64 }),
      parametersRef: localParametersRef,
    },
    { required: ['controllerName'] },
  ),
  obj(
    { conditions: conditions({ default: gatewayClassConditions }) },
    { default: { conditions: gatewayClassConditions } },
  ),
  true,
);

const hostnameValue = String.raw`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`;

const addressType = str({
  default: 'IPAddress',
  maxLength: 253,
  minLength: 1,
  pattern: String.raw`^Hostname|IPAddress|NamedAddress|[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9\/\-._~%!$&'()*+,;=:]+$`,
});

const hostnameAddressRule = rule(
  `Hostname value must only contain valid characters (matching ${hostnameValue})`,
  (self) => {
    const a = asObject(self);
    return a['type'] === 'Hostname' ? new RegExp(hostnameValue).test(String(field(a, 'value'))) : true;
  },
);

function uniqueAddresses(type: string) {
  return rule(`${type} values must be unique`, (self) => {
    const all = asList(self);
    return all.every((a1) =>
      a1['type'] === type
        ? existsOne(all, (a2) => a2['type'] === a1['type'] && field(a2, 'value') === field(a1, 'value'))
        : true,
    );
  });
}

const keyPattern = String.raw`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$`;

/** Infrastructure labels or annotations: at most 8, with Kubernetes key syntax. */
function infrastructureMap(what: 'Label' | 'Annotation', values: SchemaNode): SchemaNode {
  const lower = what.toLowerCase();
  return map(values, {
    maxProperties: 8,
    rules: [
      rule(
        `${what} keys must be in the form of an optional DNS subdomain prefix followed by a required name segment of up to 63 characters.`,
        (self) => Object.keys(asObject(self)).every((k) => new RegExp(keyPattern).test(k)),
      ),
      rule(
        `If specified, the ${lower} key's prefix must be a DNS subdomain not longer than 253 characters in total.`,
        (self) => Object.keys(asObject(self)).every((k) => (k.split('/')[0] ?? '').length < 253),
      ),
    ],
  });
}

const labelSelector = obj({
  matchExpressions: arr(
    obj({ key: str(), operator: str(), values: arr(str(), { listType: 'atomic' }) }, { required: ['key', 'operator'] }),
    { listType: 'atomic' },
  ),
  matchLabels: map(str()),
});

const routeGroupKind = obj({ group: group(gatewayGroup), kind: kind() }, { required: ['kind'] });

/** A listener's certificate reference: a Secret unless told otherwise. */
function certificateRefFields(): Record<string, SchemaNode> {
  return { group: group(''), kind: kind('Secret'), name: objectName, namespace: namespaceName };
}

const listenerTls = obj(
  {
    certificateRefs: arr(obj(certificateRefFields(), { required: ['name'] }), { maxItems: 64 }),
    mode: str({ default: 'Terminate', enum: ['Terminate', 'Passthrough'] }),
    options: stringOptions,
  },
  {
    rules: [
      rule('certificateRefs or options must be specified when mode is Terminate', (self) => {
        const tls = asObject(self);
        if (tls['mode'] !== 'Terminate') return true;
        // CEL's `||` absorbs an error on one side when the other is true.
        const refs = has(tls, 'certificateRefs') ? asList(tls['certificateRefs']).length > 0 : undefined;
        const options = has(tls, 'options') ? Object.keys(asObject(tls['options'])).length > 0 : undefined;
        if (refs === true || options === true) return true;
        if (refs === undefined) field(tls, 'certificateRefs');
        if (options === undefined) field(tls, 'options');
        return false;
      }),
    ],
  },
);

const listener = obj(
  {
    allowedRoutes: obj(
      {
        kinds: arr(routeGroupKind, { maxItems: 8 }),
        namespaces: obj(
          { from: str({ default: 'Same', enum: ['All', 'Selector', 'Same'] }), selector: labelSelector },
          { default: { from: 'Same' } },
        ),
      },
      { default: { namespaces: { from: 'Same' } } },
    ),
    hostname,
    name: sectionName,
    port: portNumber,
    protocol: str({
      maxLength: 255,
      minLength: 1,
      pattern: String.raw`^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$|[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9]+$`,
    }),
    tls: listenerTls,
  },
  { required: ['name', 'port', 'protocol'] },
);

function sameHostname(l1: Record<string, unknown>, l2: Record<string, unknown>): boolean {
  return has(l1, 'hostname') && has(l2, 'hostname')
    ? l1['hostname'] === l2['hostname']
    : !has(l1, 'hostname') && !has(l2, 'hostname');
}

const listenerRules = [
  rule("tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']", (self) =>
    asList(self).every((l) => (['HTTP', 'TCP', 'UDP'].includes(String(l['protocol'])) ? !has(l, 'tls') : true)),
  ),
  rule('tls mode must be Terminate for protocol HTTPS', (self) =>
    asList(self).every((l) => {
      if (l['protocol'] !== 'HTTPS' || !has(l, 'tls')) return true;
      const mode = asObject(l['tls'])['mode'];
      return mode === '' || mode === 'Terminate';
    }),
  ),
  rule("hostname must not be specified for protocols ['TCP', 'UDP']", (self) =>
    asList(self).every((l) => (['TCP', 'UDP'].includes(String(l['protocol'])) ? unsetOrEmpty(l, 'hostname') : true)),
  ),
  rule('Listener name must be unique within the Gateway', (self) => {
    const all = asList(self);
    return all.every((l1) => existsOne(all, (l2) => l1['name'] === l2['name']));
  }),
  rule('Combination of port, protocol and hostname must be unique for each listener', (self) => {
    const all = asList(self);
    return all.every((l1) =>
      existsOne(all, (l2) => l1['port'] === l2['port'] && l1['protocol'] === l2['protocol'] && sameHostname(l1, l2)),
    );
  }),
];

const gatewayConditions = [pending('Accepted'), pending('Programmed')];

const gatewaySpec = obj(
  {
    addresses: arr(obj({ type: addressType, value: str({ maxLength: 253 }) }, { rules: [hostnameAddressRule] }), {
      maxItems: 16,
      rules: [uniqueAddresses('IPAddress'), uniqueAddresses('Hostname')],
    }),
    gatewayClassName: str({ maxLength: 253, minLength: 1 }),
    infrastructure: obj({
      annotations: infrastructureMap('Annotation', str({ maxLength: 4096, minLength: 0 })),
      labels: infrastructureMap('Label', str({ maxLength: 63, minLength: 0, pattern: labelValue })),
      parametersRef: obj({ group: group(), kind: kind(), name: objectName }, { required: ['group', 'kind', 'name'] }),
    }),
    listeners: arr(listener, {
      maxItems: 64,
      minItems: 1,
      listType: 'map',
      listMapKeys: ['name'],
      rules: listenerRules,
    }),
  },
  { required: ['gatewayClassName', 'listeners'] },
);

const gatewayStatus = obj(
  {
    addresses: arr(
      obj(
        { type: addressType, value: str({ maxLength: 253, minLength: 1 }) },
        { required: ['value'], rules: [hostnameAddressRule] },
      ),
      { maxItems: 16 },
    ),
    conditions: conditions({ default: gatewayConditions }),
    listeners: arr(
      obj(
        {
          attachedRoutes: int(),
          conditions: conditions(),
          name: sectionName,
          supportedKinds: arr(routeGroupKind, { maxItems: 8 }),
        },
        { required: ['attachedRoutes', 'conditions', 'name', 'supportedKinds'] },
      ),
      { maxItems: 64, listType: 'map', listMapKeys: ['name'] },
    ),
  },
  { default: { conditions: gatewayConditions } },
);

/** Gateway: listeners, addresses, infrastructure; a controller reports addresses and conditions in status. */
export const gatewaySchema = resourceRoot(gatewaySpec, gatewayStatus, true);

/** ReferenceGrant (v1beta1): which kinds in which namespaces may refer to which objects here. No status. */
export const referenceGrantSchema = resourceRoot(
  obj(
    {
      from: arr(
        obj({ group: group(), kind: kind(), namespace: namespaceName }, { required: ['group', 'kind', 'namespace'] }),
        { maxItems: 16, minItems: 1 },
      ),
      to: arr(obj({ group: group(), kind: kind(), name: objectName }, { required: ['group', 'kind'] }), {
        maxItems: 16,
        minItems: 1,
      }),
    },
    { required: ['from', 'to'] },
  ),
  undefined,
  false,
);
