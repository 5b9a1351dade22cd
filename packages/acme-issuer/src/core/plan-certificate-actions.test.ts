import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CertificateRequest, ObjectRef } from '@portolan/desired-state';
import type { ObservedTlsSecret } from './managed-secret.ts';
import { planCertificateActions, retryDelayMs, type CertificatePlanInput } from './plan-certificate-actions.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

function secretRef(name: string): ObjectRef {
  return { cluster: 'c1', kind: 'Secret', namespace: 'shop', name };
}
function ingressRef(name: string): ObjectRef {
  return { cluster: 'c1', kind: 'Ingress', namespace: 'shop', name };
}
function request(name: string, hosts: string[], ingress = 'web'): CertificateRequest {
  return { secret: secretRef(name), hosts, ingress: ingressRef(ingress) };
}
function secret(name: string, over: Partial<ObservedTlsSecret> = {}): ObservedTlsSecret {
  return {
    ref: secretRef(name),
    managed: true,
    hosts: ['a.example.com'],
    ingress: ingressRef('web'),
    notAfterMs: NOW + 30 * DAY,
    resourceVersion: '7',
    ...over,
  };
}
function plan(over: Partial<CertificatePlanInput>): ReturnType<typeof planCertificateActions> {
  return planCertificateActions({ requests: [], secrets: [], failures: [], nowMs: NOW, renewBeforeDays: 8, ...over });
}
/** `kind[/reason]` per Secret name: the summary a user would read. */
function summary(input: Partial<CertificatePlanInput>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of plan(input).actions) {
    const name = a.kind === 'issue' ? a.request.secret.name : a.secret.name;
    out[name] = a.kind === 'issue' || a.kind === 'refuse' ? `${a.kind}/${a.reason}` : a.kind;
  }
  return out;
}

describe('planCertificateActions: which certificates to request or renew', () => {
  const cases: { name: string; input: Partial<CertificatePlanInput>; want: Record<string, string> }[] = [
    {
      name: 'a requested Secret that does not exist is issued',
      input: { requests: [request('a-tls', ['a.example.com'])] },
      want: { 'a-tls': 'issue/SecretMissing' },
    },
    {
      name: 'expiring in 30 days: left alone',
      input: { requests: [request('a-tls', ['a.example.com'])], secrets: [secret('a-tls')] },
      want: { 'a-tls': 'keep' },
    },
    {
      name: 'expiring in 5 days: renewed',
      input: {
        requests: [request('a-tls', ['a.example.com'])],
        secrets: [secret('a-tls', { notAfterMs: NOW + 5 * DAY })],
      },
      want: { 'a-tls': 'issue/Expiring' },
    },
    {
      name: 'exactly 8 days left: renewed (eight days before expiry)',
      input: { secrets: [secret('a-tls', { notAfterMs: NOW + 8 * DAY })] },
      want: { 'a-tls': 'issue/Expiring' },
    },
    {
      name: '8 days and a minute left: kept',
      input: { secrets: [secret('a-tls', { notAfterMs: NOW + 8 * DAY + 60_000 })] },
      want: { 'a-tls': 'keep' },
    },
    {
      name: 'already expired: renewed',
      input: { secrets: [secret('a-tls', { notAfterMs: NOW - DAY })] },
      want: { 'a-tls': 'issue/Expiring' },
    },
    {
      name: 'renewBeforeDays from the fleet config is honoured',
      input: { renewBeforeDays: 31, secrets: [secret('a-tls')] },
      want: { 'a-tls': 'issue/Expiring' },
    },
    {
      name: 'our Secrets are renewed from their recorded hosts even when no request names them',
      input: { secrets: [secret('old-tls', { notAfterMs: NOW + 5 * DAY }), secret('fresh-tls')] },
      want: { 'fresh-tls': 'keep', 'old-tls': 'issue/Expiring' },
    },
    {
      name: 'hosts in the request differ from the certificate: reissued',
      input: { requests: [request('a-tls', ['a.example.com', 'b.example.com'])], secrets: [secret('a-tls')] },
      want: { 'a-tls': 'issue/HostsChanged' },
    },
    {
      name: 'host case and order do not count as a change',
      input: { requests: [request('a-tls', ['A.Example.com', 'a.example.com'])], secrets: [secret('a-tls')] },
      want: { 'a-tls': 'keep' },
    },
    {
      name: 'unreadable certificate: reissued',
      input: { requests: [request('a-tls', ['a.example.com'])], secrets: [secret('a-tls', { notAfterMs: null })] },
      want: { 'a-tls': 'issue/CertificateUnreadable' },
    },
    {
      name: 'a Secret someone else made is never overwritten',
      input: {
        requests: [request('a-tls', ['a.example.com'])],
        secrets: [secret('a-tls', { managed: false, notAfterMs: NOW - DAY })],
      },
      want: { 'a-tls': 'refuse/SecretNotManaged' },
    },
    {
      name: 'a Secret someone else made and no request: not ours to look at',
      input: { secrets: [secret('user-tls', { managed: false, notAfterMs: NOW + DAY })] },
      want: {},
    },
    {
      name: 'wildcard hosts need DNS-01: refused',
      input: { requests: [request('w-tls', ['*.example.com'])] },
      want: { 'w-tls': 'refuse/WildcardNeedsDns01' },
    },
    { name: 'no hosts: refused', input: { requests: [request('e-tls', [' '])] }, want: { 'e-tls': 'refuse/NoHosts' } },
    {
      name: 'a recent failure waits for its backoff; an older one is retried',
      input: {
        requests: [request('a-tls', ['a.example.com']), request('b-tls', ['b.example.com'])],
        failures: [
          { secret: secretRef('a-tls'), attempts: 3, lastAttemptMs: NOW - 60_000 },
          { secret: secretRef('b-tls'), attempts: 1, lastAttemptMs: NOW - 61_000 },
        ],
      },
      want: { 'a-tls': 'wait', 'b-tls': 'issue/SecretMissing' },
    },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(summary(c.input), c.want));

  test('two Ingresses naming one Secret get one certificate for the union of their hosts', () => {
    const { actions } = plan({
      requests: [
        request('a-tls', ['b.example.com'], 'one'),
        request('a-tls', ['a.example.com', 'B.example.com'], 'two'),
      ],
    });
    assert.equal(actions.length, 1);
    const only = actions[0];
    assert.ok(only?.kind === 'issue');
    assert.deepEqual(only.request.hosts, ['a.example.com', 'b.example.com']);
    assert.equal(only.request.ingress.name, 'one');
    assert.equal(only.resourceVersion, null);
  });

  test('a renewal replaces the Secret conditionally on the resourceVersion it saw', () => {
    const [only] = plan({ secrets: [secret('a-tls', { notAfterMs: NOW + DAY, resourceVersion: '41' })] }).actions;
    assert.ok(only?.kind === 'issue');
    assert.equal(only.resourceVersion, '41');
    assert.deepEqual(only.request.hosts, ['a.example.com']);
  });

  test('the next check is the earliest renewal or retry time', () => {
    const input = {
      secrets: [secret('a-tls', { notAfterMs: NOW + 20 * DAY }), secret('b-tls', { notAfterMs: NOW + 10 * DAY })],
      requests: [request('c-tls', ['c.example.com'])],
      failures: [{ secret: secretRef('c-tls'), attempts: 2, lastAttemptMs: NOW }],
    };
    assert.equal(plan(input).nextCheckAtMs, NOW + retryDelayMs(2));
    assert.equal(plan({ secrets: input.secrets }).nextCheckAtMs, NOW + 2 * DAY);
    assert.equal(plan({}).nextCheckAtMs, null);
  });

  test('retry delays double from a minute up to six hours', () => {
    assert.deepEqual([1, 2, 3, 10, 100].map(retryDelayMs), [60_000, 120_000, 240_000, 6 * 3_600_000, 6 * 3_600_000]);
  });

  test('the decision does not depend on the order of its inputs', () => {
    const requests = [request('b-tls', ['b.example.com']), request('a-tls', ['a.example.com'])];
    const secrets = [secret('b-tls', { hosts: ['b.example.com'], notAfterMs: NOW + DAY }), secret('z-tls')];
    assert.deepEqual(
      plan({ requests, secrets }),
      plan({ requests: [...requests].reverse(), secrets: [...secrets].reverse() }),
    );
  });
});
