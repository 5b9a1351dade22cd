import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApplianceConfig, ClusterConfig } from '@portolan/fleet-config';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { Planner } from '../planner.ts';
import { poolNameOf } from '../translate/ingress-intent.ts';
import { vtmPersistence } from '../translate/annotation-schemas.ts';

const CLASS = f.ingressClass('portolan', 'portolan.dev/ingress-controller');
const haproxy = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]);
const web = (
  o: { tls?: { hosts?: string[]; secretName?: string }[]; name?: string; created?: number; host?: string } = {},
) =>
  f.ingress({
    name: o.name ?? 'web',
    created: f.at(o.created ?? 0),
    rules: [f.rule(o.host ?? 'a.example.com', ['/', 'Prefix', 'web', 80])],
    ...(o.tls ? { tls: o.tls } : {}),
  });

test('TLS table: each unusable Secret is a warning on its Ingress only; other hosts and Ingresses are unaffected', () => {
  const rows: { name: string; objects: Record<string, unknown>[]; want: string[] }[] = [
    {
      name: 'wrong type',
      objects: [
        web({ tls: [{ hosts: ['a.example.com'], secretName: 's' }] }),
        f.tlsSecret('s', 'ab'.repeat(32), { type: 'Opaque' }),
      ],
      want: ['Warning c1/default/web SecretWrongType'],
    },
    {
      name: 'not sealed (plaintext never kept)',
      objects: [
        web({ tls: [{ hosts: ['a.example.com'], secretName: 's' }] }),
        {
          kind: 'Secret',
          metadata: { name: 's', namespace: 'default', resourceVersion: f.nextRv() },
          type: 'kubernetes.io/tls',
          data: { 'tls.key': 'S0VZ' },
        },
      ],
      want: ['Warning c1/default/web SecretNotSealed'],
    },
    {
      name: 'no secretName',
      objects: [web({ tls: [{ hosts: ['a.example.com'] }] })],
      want: ['Warning c1/default/web TlsWithoutSecret'],
    },
    {
      name: 'missing',
      objects: [web({ tls: [{ hosts: ['a.example.com'], secretName: 'gone' }] })],
      want: ['Warning c1/default/web SecretNotFound'],
    },
    {
      name: 'key does not match',
      objects: [
        web({ tls: [{ hosts: ['a.example.com'], secretName: 's' }] }),
        f.tlsSecret('s', 'cd'.repeat(32), {
          tls: { ok: false, reason: 'tls.key does not match the certificate in tls.crt' },
        }),
      ],
      want: ['Warning c1/default/web InvalidCertificate'],
    },
    {
      name: 'garbage certificate',
      objects: [
        web({ tls: [{ hosts: ['a.example.com'], secretName: 's' }] }),
        f.tlsSecret('s', 'cd'.repeat(32), {
          tls: { ok: false, reason: 'tls.crt is not a PEM or DER X.509 certificate' },
        }),
      ],
      want: ['Warning c1/default/web InvalidCertificate'],
    },
  ];
  for (const row of rows) {
    const d = planEvents(
      haproxy,
      f.added(
        'c1',
        CLASS,
        f.service('web', [[undefined, 80]]),
        ...row.objects,
        web({ name: 'ok', created: 1, host: 'b.example.com', tls: [{ hosts: ['b.example.com'], secretName: 'good' }] }),
        f.tlsSecret('good'),
      ),
    );
    const lines = summarize(d);
    assert.deepEqual(
      lines.filter((l) => l.includes('c1/default/web') && !l.startsWith('vs') && !l.startsWith('  ')),
      ['Accepted c1/default/web Planned', ...row.want],
      row.name,
    );
    assert.ok(lines.includes('cert c1~default~good ababab hosts=b.example.com'), row.name);
    assert.ok(
      lines.includes('  a.example.com/ Prefix -> default~web~80 (c1/default/web)'),
      `${row.name}: the host keeps its routes`,
    );
  }
});

test('a usable certificate that expired or does not name its hosts is served, with a warning for each', () => {
  const tls = { ok: true, names: ['*.example.com'], notAfter: '2026-01-01T00:00:00.000Z', expiredWhenRead: true };
  const ing = f.ingress({
    name: 'web',
    rules: [f.rule('a.example.com', ['/', 'Prefix', 'web', 80]), f.rule('x.other.org', ['/', 'Prefix', 'web', 80])],
    tls: [{ hosts: ['a.example.com', 'x.other.org'], secretName: 's' }],
  });
  const d = planEvents(
    haproxy,
    f.added('c1', CLASS, f.service('web', [[undefined, 80]]), ing, f.tlsSecret('s', 'ef'.repeat(32), { tls })),
  );
  const lines = summarize(d);
  assert.ok(lines.includes('cert c1~default~s efefef hosts=a.example.com,x.other.org'), lines.join('\n'));
  assert.deepEqual(
    lines.filter((l) => l.startsWith('Warning')),
    ['Warning c1/default/web CertificateExpired', 'Warning c1/default/web CertificateHostMismatch'],
  );
  assert.match(
    d.conditions.find((c) => c.reason === 'CertificateHostMismatch')!.message,
    /does not name x\.other\.org;/,
  );
});

test('TLS without hosts offers the listener-wide default certificate', () => {
  const d = planEvents(
    haproxy,
    f.added('c1', CLASS, web({ tls: [{ secretName: 'wild' }] }), f.tlsSecret('wild', 'ee'.repeat(32))),
  );
  assert.deepEqual(
    summarize(d).filter((l) => l.startsWith('vs') || l.startsWith('cert')),
    [
      'vs default~443 https default owners=c1/default/web certs=c1~default~wild',
      'vs default~80 http default owners=c1/default/web',
      'cert c1~default~wild eeeeee hosts=*',
    ],
  );
});

test('a Secret created after its Ingress is picked up incrementally (its event re-plans only that Ingress)', () => {
  const p = new Planner(haproxy);
  for (const e of f.added(
    'c1',
    CLASS,
    f.service('web', [[undefined, 80]]),
    web({ tls: [{ hosts: ['a.example.com'], secretName: 's' }] }),
  ))
    p.applyEvent(e);
  p.planDirty();
  assert.ok(summarize(p.desiredState('lb')!).includes('Warning c1/default/web SecretNotFound'));
  for (const e of f.added('c1', f.tlsSecret('s', '12'.repeat(32)))) p.applyEvent(e);
  const planned = p.planDirty();
  assert.equal(planned.length, 1);
  assert.deepEqual(
    summarize(planned[0]!.desired).filter((l) => l.startsWith('cert') || l.startsWith('Warning')),
    ['cert c1~default~s 121212 hosts=a.example.com'],
  );
});

test('private-key bytes never reach any snapshot piece, even when a Secret arrives unsealed', () => {
  const p = new Planner(haproxy);
  const plain = {
    kind: 'Secret',
    metadata: { name: 's', namespace: 'default', resourceVersion: '5' },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': 'LS0tQ0VSVElGSUNBVEUtLS0t', 'tls.key': 'LS0tUFJJVkFURSBLRVktLS0t' },
  };
  for (const e of f.added('c1', CLASS, web({ tls: [{ hosts: ['a.example.com'], secretName: 's' }] }), plain))
    p.applyEvent(e);
  const [plan] = p.planDirty();
  const all = [...plan!.pieces.values()].map((b) => new TextDecoder().decode(b)).join('\n');
  assert.doesNotMatch(all, /LS0tUFJJVkFURSBLRVktLS0t|PRIVATE KEY|LS0tQ0VSVElGSUNBVEUtLS0t/);
  assert.match(all, /SecretNotSealed/);
});

const vtmNodePort = (extra: Partial<ApplianceConfig> = {}) =>
  f.fleet([{ name: 'c1' }], [{ ...f.appliance('lb', 'vtm', { backendMode: 'nodeport' }), ...extra }]);
const VTM_CLASS = f.ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller');
const NODES = [f.node('n1', '192.168.0.1'), f.node('n2', '192.168.0.2'), f.node('n3', '192.168.0.3', false)];
const vtmIngress = (annotations: Record<string, string> = {}) =>
  f.ingress({
    name: 'web',
    className: 'vtm',
    annotations: { 'vtm.pulsesecure.net/ip-address': '10.0.0.9', ...annotations },
    rules: [f.rule('a.example.com', ['/', 'Prefix', 'web', 80])],
  });

test('NodePort mode (the documented vTM data path): Ready nodes × nodePort; NotReady nodes are left out', () => {
  const d = planEvents(
    vtmNodePort(),
    f.added(
      'c1',
      VTM_CLASS,
      ...NODES,
      vtmIngress(),
      f.service('web', [[undefined, 80, 30080]], { type: 'NodePort' }),
      f.slice('web-1', 'web', undefined, 8080, [['10.1.0.1', true, true, false, 'n1']]),
    ),
  );
  assert.deepEqual(
    summarize(d).filter((l) => l.startsWith('pool') || l.startsWith('Accepted') || l.startsWith('Warning')),
    ['pool default~web~80 monitor=tcp [192.168.0.1:30080@c1 192.168.0.2:30080@c1]', 'Accepted c1/default/web Planned'],
  );
});

test('NodePort mode: a ClusterIP Service has no data path: warned, pool empty', () => {
  const d = planEvents(
    vtmNodePort(),
    f.added('c1', VTM_CLASS, ...NODES, vtmIngress(), f.service('web', [[undefined, 80]])),
  );
  assert.deepEqual(
    summarize(d).filter((l) => l.startsWith('pool') || l.startsWith('Warning')),
    ['pool default~web~80 monitor=tcp []', 'Warning c1/default/web NotNodePortService'],
  );
});

test('NodePort mode: persistence without externalTrafficPolicy Local is warned (as vTM documents); with Local only nodes running endpoints serve', () => {
  const persistence = '{"properties":{"basic":{"type":"ip"}}}';
  const pool = poolNameOf(
    'default',
    { service: 'web', port: 80 },
    {
      monitor: null,
      persistence: vtmPersistence({ properties: { basic: { type: 'ip' } } }) as never,
      tlsToBackend: false,
      customization: null,
    },
  );
  const objects = (policy?: string) =>
    f.added(
      'c1',
      VTM_CLASS,
      ...NODES,
      vtmIngress({ 'vtm.pulsesecure.net/persistence': persistence }),
      f.service('web', [[undefined, 80, 30080]], {
        type: 'NodePort',
        ...(policy ? { externalTrafficPolicy: policy } : {}),
      }),
      f.slice('web-1', 'web', undefined, 8080, [
        ['10.1.0.1', true, true, false, 'n2'],
        ['10.1.0.2', false, true, true, 'n3'],
      ]),
    );
  const cluster = summarize(planEvents(vtmNodePort(), objects('Cluster')));
  assert.deepEqual(
    cluster.filter((l) => l.startsWith('pool') || l.startsWith('Warning')),
    [
      `pool ${pool} monitor=tcp persist=source-ip [192.168.0.1:30080@c1 192.168.0.2:30080@c1]`,
      'Warning c1/default/web AffinityNeedsLocalTrafficPolicy',
    ],
  );
  const local = summarize(planEvents(vtmNodePort(), objects('Local')));
  assert.deepEqual(
    local.filter((l) => l.startsWith('pool') || l.startsWith('Warning')),
    [`pool ${pool} monitor=tcp persist=source-ip [192.168.0.2:30080@c1]`],
  );
});

test('NodePort mode: a node going NotReady drops its member on the next plan', () => {
  const p = new Planner(vtmNodePort());
  for (const e of f.added(
    'c1',
    VTM_CLASS,
    ...NODES,
    vtmIngress(),
    f.service('web', [[undefined, 80, 30080]], { type: 'NodePort' }),
  ))
    p.applyEvent(e);
  p.planDirty();
  p.applyEvent({ cluster: 'c1', kind: 'Node', type: 'MODIFIED', object: f.node('n1', '192.168.0.1', false) });
  const [plan] = p.planDirty();
  assert.deepEqual(
    summarize(plan!.desired).filter((l) => l.startsWith('pool')),
    ['pool default~web~80 monitor=tcp [192.168.0.2:30080@c1]'],
  );
});

const twoClusters = (
  appliance: Partial<ApplianceConfig> = {},
  clusters: Partial<ClusterConfig>[] = [
    { name: 'east', weight: 1 },
    { name: 'west', weight: 3 },
  ],
) => f.fleet(clusters, [{ ...f.appliance('lb', 'haproxy'), ...appliance }]);

test("multi-cluster: the same host in two clusters is one route whose pool holds both clusters' members, weighted per cluster", () => {
  const events = [
    ...f.added(
      'east',
      CLASS,
      web({ created: 1 }),
      f.service('web', [[undefined, 80]]),
      f.slice('web-e', 'web', undefined, 8080, [['10.1.0.1'], ['10.1.0.2']]),
    ),
    ...f.added(
      'west',
      CLASS,
      web({ created: 2 }),
      f.service('web', [[undefined, 80]]),
      f.slice('web-w', 'web', undefined, 8080, [['10.2.0.1']]),
    ),
  ];
  assert.deepEqual(summarize(planEvents(twoClusters(), events)), [
    'vs default~80 http default owners=east/default/web,west/default/web',
    '  a.example.com/ Prefix -> default~web~80 (east/default/web)',
    'pool default~web~80 [10.1.0.1:8080@east 10.1.0.2:8080@east 10.2.0.1:8080*3@west]',
    'Accepted east/default/web Planned',
    'Accepted west/default/web Planned',
  ]);
  const pool = planEvents(twoClusters(), events).pools[0]!;
  assert.deepEqual(
    pool.services.map((s) => s.cluster),
    ['east', 'west'],
  );
});

test('multi-cluster: a different backend for the same host in the second cluster is a conflict the newer loses', () => {
  const events = [
    ...f.added('east', CLASS, web({ created: 1 }), f.service('web', [[undefined, 80]])),
    ...f.added(
      'west',
      CLASS,
      f.ingress({ name: 'web', created: f.at(2), rules: [f.rule('a.example.com', ['/', 'Prefix', 'other', 80])] }),
      f.service('other', [[undefined, 80]]),
    ),
  ];
  const lines = summarize(planEvents(twoClusters(), events));
  assert.deepEqual(
    lines.filter((l) => !l.startsWith('vs')),
    [
      '  a.example.com/ Prefix -> default~web~80 (east/default/web)',
      'pool default~web~80 []',
      'Accepted east/default/web Planned',
      'Rejected west/default/web AllRoutesConflict',
      'Warning west/default/web RouteConflict',
    ],
  );
});

test('multi-cluster: an appliance limited to some clusters ignores the others', () => {
  const events = [
    ...f.added('east', CLASS, web({ created: 1 })),
    ...f.added('west', CLASS, web({ created: 0, host: 'w.example.com' })),
  ];
  const lines = summarize(planEvents(twoClusters({ clusters: ['east'] }), events));
  assert.ok(lines.every((l) => !l.includes('west')));
  assert.ok(lines.includes('Accepted east/default/web Planned'));
});

test('namespace scope: one namespace, a list, or everything but kube-system', () => {
  const objects = (cl: string) =>
    f.added(
      cl,
      CLASS,
      f.ingress({ name: 'a', namespace: 'kube-system', rules: [f.rule('k.example.com', ['/', 'Prefix', 's', 80])] }),
      f.ingress({ name: 'b', namespace: 'shop', rules: [f.rule('s.example.com', ['/', 'Prefix', 's', 80])] }),
      f.ingress({ name: 'c', namespace: 'blog', rules: [f.rule('b.example.com', ['/', 'Prefix', 's', 80])] }),
    );
  const accepted = (namespaces: ClusterConfig['namespaces']) =>
    summarize(planEvents(f.fleet([{ name: 'c1', namespaces }], [f.appliance('lb', 'haproxy')]), objects('c1')))
      .filter((l) => l.startsWith('Accepted'))
      .map((l) => l.split(' ')[1]);
  assert.deepEqual(accepted('all-except-kube-system'), ['c1/blog/c', 'c1/shop/b']);
  assert.deepEqual(accepted('shop'), ['c1/shop/b']);
  assert.deepEqual(accepted(['kube-system', 'blog']), ['c1/blog/c', 'c1/kube-system/a']);
});

test('default IngressClass: an Ingress without a class is ours only when the default class has our controller', () => {
  const classless = f.ingress({
    name: 'x',
    className: null,
    rules: [f.rule('x.example.com', ['/', 'Prefix', 's', 80])],
  });
  const ours = summarize(
    planEvents(haproxy, f.added('c1', f.ingressClass('portolan', 'portolan.dev/ingress-controller', true), classless)),
  );
  assert.ok(ours.includes('Accepted c1/default/x Planned'));
  const theirs = summarize(
    planEvents(
      haproxy,
      f.added(
        'c1',
        f.ingressClass('portolan', 'portolan.dev/ingress-controller'),
        f.ingressClass('nginx', 'k8s.io/ingress-nginx', true),
        classless,
      ),
    ),
  );
  assert.deepEqual(theirs, []);
  const p = new Planner(haproxy);
  for (const e of f.added('c1', f.ingressClass('portolan', 'portolan.dev/ingress-controller'), classless))
    p.applyEvent(e);
  p.planDirty();
  assert.deepEqual(summarize(p.desiredState('lb')!), []);
  for (const e of f.added('c1', f.ingressClass('portolan', 'portolan.dev/ingress-controller', true)))
    p.applyEvent({ ...e, type: 'MODIFIED' });
  assert.ok(
    summarize(p.planDirty()[0]!.desired).includes('Accepted c1/default/x Planned'),
    'marking a class default re-plans classless Ingresses',
  );
});

test('an Ingress leaving a shared address for the default listener, in the same plan as its copy in another cluster arriving there, serves from both clusters', () => {
  // Found by the incremental-equals-recompute property: the default listener was re-allocated first, then the shared
  // address's group dropped the outcome the default listener had just given, and the Ingress was rejected.
  const fleet = f.fleet([{ name: 'c1' }, { name: 'c2' }], [f.appliance('v', 'vtm')]);
  const world = (address: string): Record<string, unknown>[] => [
    VTM_CLASS,
    f.service('web', [[undefined, 80]]),
    f.slice('web-0', 'web', undefined, 8080, [[address, true, true, false, 'n1']]),
  ];
  const copy = (annotations: Record<string, string>) =>
    f.ingress({ name: 'web', className: 'vtm', annotations, defaultBackend: f.backend('web', 80) });
  const p = new Planner(fleet);
  for (const e of [
    ...f.added('c1', ...world('10.1.0.1')),
    ...f.added('c2', ...world('10.2.0.1'), copy({ 'vtm.pulsesecure.net/shared-ip-address': '10.0.0.5' })),
  ])
    p.applyEvent(e);
  p.planDirty();
  for (const e of [...f.added('c1', copy({})), ...f.added('c2', copy({}))]) p.applyEvent(e);
  p.planDirty();
  const lines = summarize(p.desiredState('v')!);
  assert.deepEqual(
    lines.filter((l) => /^(Accepted|Rejected|pool)/.test(l)),
    [
      'pool default~web~80 monitor=tcp [10.1.0.1:8080@c1 10.2.0.1:8080@c2]',
      'Accepted c1/default/web Planned',
      'Accepted c2/default/web Planned',
    ],
  );
});
