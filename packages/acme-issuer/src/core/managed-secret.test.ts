import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  HOSTS_ANNOTATION,
  INGRESS_ANNOTATION,
  MANAGED_BY_LABEL,
  parseHostsAnnotation,
  parseIngressAnnotation,
  tlsSecretManifest,
} from './managed-secret.ts';

const request = {
  secret: { cluster: 'c1', kind: 'Secret' as const, namespace: 'shop', name: 'web-tls' },
  hosts: ['a.example.com', 'b.example.com'],
  ingress: { cluster: 'c1', kind: 'Ingress' as const, namespace: 'shop', name: 'web' },
};
const issued = {
  certificatePem: '-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n',
  privateKeyPem: '-----BEGIN PRIVATE KEY-----\nBBB\n-----END PRIVATE KEY-----\n',
  notAfterMs: Date.UTC(2027, 0, 1),
};

test('the written Secret is kubernetes.io/tls, labelled as ours, with hosts and Ingress recorded and readable back', () => {
  const m = tlsSecretManifest(request, issued, '12');
  assert.equal(m.type, 'kubernetes.io/tls');
  assert.deepEqual(
    { name: m.metadata.name, namespace: m.metadata.namespace, rv: m.metadata.resourceVersion },
    { name: 'web-tls', namespace: 'shop', rv: '12' },
  );
  assert.equal(m.metadata.labels[MANAGED_BY_LABEL], 'acme');
  assert.equal(Buffer.from(m.data['tls.crt'], 'base64').toString(), issued.certificatePem);
  assert.equal(Buffer.from(m.data['tls.key'], 'base64').toString(), issued.privateKeyPem);
  assert.deepEqual(parseHostsAnnotation(m.metadata.annotations[HOSTS_ANNOTATION]), request.hosts);
  assert.deepEqual(parseIngressAnnotation(m.metadata.annotations[INGRESS_ANNOTATION], 'c1'), request.ingress);
  assert.equal(
    tlsSecretManifest(request, issued, null).metadata.resourceVersion,
    undefined,
    'a create carries no resourceVersion',
  );
});

test('malformed annotations read as nothing rather than as garbage', () => {
  assert.deepEqual(parseHostsAnnotation(undefined), []);
  assert.deepEqual(parseHostsAnnotation(' B.example.com,,a.example.com '), ['a.example.com', 'b.example.com']);
  assert.equal(parseIngressAnnotation('just-a-name', 'c1'), null);
  assert.equal(parseIngressAnnotation('a/b/c', 'c1'), null);
});
