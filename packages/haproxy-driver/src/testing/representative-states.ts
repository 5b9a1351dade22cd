import type { DesiredState, Monitor } from '@portolan/desired-state';
import { certificate, desired, member, pool, route, service } from './desired-fixtures.ts';

/** An HTTP health monitor used by several states. */
export const monitor: Monitor = {
  type: 'http',
  path: '/healthz',
  hostHeader: 'web.test',
  expectStatus: '^2..$',
  intervalSeconds: 2,
  timeoutSeconds: 1.5,
  failures: 3,
  vendor: null,
};

/** Representative desired states: render tables compare their whole output; an integration test runs `haproxy -c` on each. */
export const representativeStates: Record<string, DesiredState> = {
  empty: desired({}),
  routing: desired({
    pools: [
      pool('default/web:80', [member('10.1.0.2', 8080), member('10.1.0.1', 8080)]),
      pool('default/api:80', [member('10.1.0.3', 9090)]),
    ],
    virtualServices: [
      service(
        'http',
        80,
        [
          route('shop.test', '/api', 'Exact', 'default/api:80'),
          route('shop.test', '/', 'Prefix', 'default/web:80'),
          route('*.shop.test', '/static', 'Prefix', 'default/web:80'),
          route('', '/health', 'Exact', 'default/api:80'),
        ],
        { defaultPool: 'default/web:80' },
      ),
    ],
  }),
  tls: desired({
    pools: [pool('web', [member('10.1.0.1', 8443)], { tlsToBackend: true })],
    certificates: [certificate('shop-tls', ['*.shop.test', 'shop.test']), certificate('blog-tls', [])],
    virtualServices: [
      service('http', 80, [], { redirectToHttpsPort: 443 }),
      service('https', 443, [route('shop.test', '/', 'Prefix', 'web')], {
        protocol: 'https',
        certificates: ['shop-tls', 'blog-tls'],
      }),
    ],
  }),
  'passthrough-and-pool-features': desired({
    pools: [
      pool('db', [member('10.2.0.1', 5432)], { persistence: { type: 'source-ip', cookie: '', vendor: null } }),
      pool('app', [member('10.3.0.1', 80, { weight: 5 }), member('10.3.0.2', 80, { state: 'draining' })], {
        monitor,
        persistence: { type: 'cookie', cookie: 'SERVERID', vendor: null },
      }),
    ],
    virtualServices: [
      service('pt', 8443, [route('db.test', '', 'Prefix', 'db'), route('*.db.test', '', 'Prefix', 'db')], {
        protocol: 'tls-passthrough',
        address: { kind: 'dedicated', ip: '198.51.100.7' },
      }),
      service('http', 80, [route('app.test', '/', 'Prefix', 'app')]),
    ],
  }),
};
