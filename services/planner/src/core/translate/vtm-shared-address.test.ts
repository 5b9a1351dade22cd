import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as f from '../../testing/fixtures.ts';
import { planEvents } from '../../testing/summary.ts';
import { BASE, POOL, ROUTE, V, ing, vtmTable, type VtmRow } from '../../testing/vtm-table.ts';

/**
 * The vTM integration's documented behaviour, shared and dedicated addresses: who may bind which port of a shared
 * address (creation order decides), dedicated addresses, and class selection.
 */
const TABLE: VtmRow[] = [
  {
    name: 'shared address: Ingresses on one port share one listener; routes apply in creation order (owners oldest first)',
    objects: [
      ing('b', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 2, host: 'b.example.com' }),
      ing('a', { [`${V}/shared-ipaddress`]: '10.0.5.223' }, { created: 1 }),
    ],
    want: [
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/a,c1/default/b',
      ROUTE('a'),
      ROUTE('b', 'b.example.com'),
      POOL,
      'Accepted c1/default/a Planned',
      'Accepted c1/default/b Planned',
    ],
  },
  {
    name: 'shared address: ssl-redirect with bind port 443 adds the shared port-80 redirect',
    objects: [
      ing(
        'a',
        { [`${V}/shared-ip-address`]: '10.0.5.223', 'ingress.kubernetes.io/ssl-redirect': 'true' },
        { tls: true },
      ),
    ],
    want: [
      'vs 10.0.5.223~443 https shared:10.0.5.223 owners=c1/default/a certs=c1~default~tls',
      ROUTE('a'),
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/a redirect=443',
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: 'shared address: ssl-redirect only if the bind port is 443',
    objects: [
      ing(
        'a',
        {
          [`${V}/shared-ip-address`]: '10.0.5.223',
          [`${V}/port`]: '8443',
          'ingress.kubernetes.io/ssl-redirect': 'true',
        },
        { tls: true },
      ),
    ],
    want: ['Rejected c1/default/a SslRedirectNeedsPort443'],
  },
  {
    name: 'shared address: ssl-redirect is refused when an older Ingress sharing the IP binds port 80',
    objects: [
      ing('old', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 1, host: 'o.example.com' }),
      ing(
        'new',
        { [`${V}/shared-ip-address`]: '10.0.5.223', 'ingress.kubernetes.io/ssl-redirect': 'true' },
        { created: 2, tls: true },
      ),
    ],
    want: [
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/old',
      ROUTE('old', 'o.example.com'),
      POOL,
      'Rejected c1/default/new SharedAddressPort80InUse',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'shared address: after an ssl-redirect Ingress, no newer Ingress may bind port 80',
    objects: [
      ing(
        'old',
        { [`${V}/shared-ip-address`]: '10.0.5.223', [`${V}/ssl-redirect`]: 'true' },
        { created: 1, tls: true },
      ),
      ing('new', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 2, host: 'n.example.com' }),
    ],
    want: [
      'vs 10.0.5.223~443 https shared:10.0.5.223 owners=c1/default/old certs=c1~default~tls',
      ROUTE('old'),
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/old redirect=443',
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com',
      'Rejected c1/default/new SharedAddressPort80Reserved',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'shared address: use-lets-encrypt is refused when an older Ingress sharing the IP binds port 80',
    objects: [
      ing('old', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 1, host: 'o.example.com' }),
      ing(
        'new',
        { [`${V}/shared-ip-address`]: '10.0.5.223', [`${V}/use-lets-encrypt`]: 'true' },
        { created: 2, tls: true },
      ),
    ],
    want: [
      'vs 10.0.5.223~80 http shared:10.0.5.223 owners=c1/default/old',
      ROUTE('old', 'o.example.com'),
      POOL,
      'Rejected c1/default/new SharedAddressPort80InUse',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'shared address: after a use-lets-encrypt Ingress, no newer Ingress may bind port 80',
    objects: [
      ing(
        'old',
        { [`${V}/shared-ip-address`]: '10.0.5.223', [`${V}/use-letsencrypt`]: 'true' },
        { created: 1, tls: true },
      ),
      ing('new', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 2, host: 'n.example.com' }),
    ],
    want: [
      'vs 10.0.5.223~443 https shared:10.0.5.223 owners=c1/default/old certs=c1~default~tls',
      ROUTE('old'),
      POOL,
      'cert c1~default~tls cdcdcd hosts=a.example.com acme',
      'Rejected c1/default/new SharedAddressPort80Reserved',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'a dedicated address belongs to one Ingress: the newer one is refused',
    objects: [
      ing('old', { [`${V}/ip-address`]: '10.0.2.223' }, { created: 1 }),
      ing('new', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/port`]: '8080' }, { created: 2, host: 'n.example.com' }),
    ],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/old',
      ROUTE('old'),
      POOL,
      'Rejected c1/default/new AddressInUse',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'an address used dedicated cannot also be shared',
    objects: [
      ing('old', { [`${V}/ip-address`]: '10.0.2.223' }, { created: 1 }),
      ing('new', { [`${V}/shared-ip-address`]: '10.0.2.223' }, { created: 2, host: 'n.example.com' }),
    ],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/old',
      ROUTE('old'),
      POOL,
      'Rejected c1/default/new AddressModeConflict',
      'Accepted c1/default/old Planned',
    ],
  },
  {
    name: 'the deprecated kubernetes.io/ingress.class: vtm annotation selects the Ingress without an IngressClass',
    objects: [
      ing('a', { 'kubernetes.io/ingress.class': 'vtm', [`${V}/ip-address`]: '10.0.2.223' }, { className: null }),
    ],
    want: [
      'vs 10.0.2.223~80 http dedicated:10.0.2.223 owners=c1/default/a',
      ROUTE('a'),
      POOL,
      'Accepted c1/default/a Planned',
    ],
  },
  {
    name: "an IngressClass of another controller is not this appliance's: nothing planned, nothing reported",
    objects: [
      f.ingressClass('nginx', 'k8s.io/ingress-nginx'),
      ing('a', { [`${V}/ip-address`]: '10.0.2.223' }, { className: 'nginx' }),
    ],
    want: [],
  },
  {
    name: 'a boolean annotation that is not true/false is rejected with its name',
    objects: [ing('a', { [`${V}/ip-address`]: '10.0.2.223', [`${V}/re-encrypt`]: 'yes' })],
    want: ['Rejected c1/default/a InvalidAnnotation'],
  },
];

vtmTable(TABLE);

test('vTM: condition messages explain the restriction and name the older Ingress', () => {
  const cfg = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'vtm')]);
  const d = planEvents(
    cfg,
    f.added(
      'c1',
      ...BASE,
      ing('old', { [`${V}/shared-ip-address`]: '10.0.5.223' }, { created: 1 }),
      ing(
        'new',
        { [`${V}/shared-ip-address`]: '10.0.5.223', 'ingress.kubernetes.io/ssl-redirect': 'true' },
        { created: 2, tls: true },
      ),
    ),
  );
  const c = d.conditions.find((x) => x.object.name === 'new')!;
  assert.equal(
    c.message,
    'ssl-redirect needs port 80 of shared address 10.0.5.223, which the older Ingress default/old binds',
  );
});
