import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DesiredState } from '@portolan/desired-state';
import { certificateRequestsOf } from './acme-wiring.ts';
import { desiredState, httpService, ingressRef } from '../testing/desired-fixtures.ts';

const secret = { cluster: 'c1', kind: 'Secret' as const, namespace: 'default', name: 'shop-tls' };

test('an ACME-managed certificate becomes one request for the exact hosts of the services that serve it', () => {
  const vs = {
    ...httpService(
      ['shop'],
      [
        ['shop.example.com', 'web'],
        ['*.example.com', 'web'],
        ['www.example.com', 'web'],
      ],
    ),
    port: 443,
    protocol: 'https' as const,
    certificates: ['shop-tls'],
  };
  const desired: DesiredState = desiredState('vtm', [], {
    virtualServices: [vs],
    certificates: [{ name: 'shop-tls', secret, fingerprint: '', hosts: [], acme: true }],
  });
  assert.deepEqual(certificateRequestsOf(desired), [
    { secret, hosts: ['shop.example.com', 'www.example.com'], ingress: ingressRef('shop') },
  ]);
});

test('certificates from ordinary Secrets, and no desired state at all, ask for nothing', () => {
  const vs = { ...httpService(['shop'], [['shop.example.com', 'web']]), certificates: ['shop-tls'] };
  assert.deepEqual(
    certificateRequestsOf(
      desiredState('vtm', [], {
        virtualServices: [vs],
        certificates: [{ name: 'shop-tls', secret, fingerprint: 'ab', hosts: ['shop.example.com'] }],
      }),
    ),
    [],
  );
  assert.deepEqual(certificateRequestsOf(null), []);
});
