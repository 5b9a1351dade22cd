// TLS: certificates from Secrets, what an unusable Secret does, and that key bytes never reach a snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { Planner } from '../planner.ts';

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
