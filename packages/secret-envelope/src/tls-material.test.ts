import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspectTlsData } from './tls-material.ts';

/** A self-signed certificate and its key, made by openssl (base64 PEM, as in a Secret's data). */
function material(names: readonly string[], curve = 'prime256v1'): { crt: string; key: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portolan-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        `ec_paramgen_curve:${curve}`,
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${names[0]}`,
        '-addext',
        `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
        '-keyout',
        path.join(dir, 'k'),
        '-out',
        path.join(dir, 'c'),
      ],
      { stdio: 'ignore' },
    );
    return {
      crt: readFileSync(path.join(dir, 'c')).toString('base64'),
      key: readFileSync(path.join(dir, 'k')).toString('base64'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const a = material(['a.example.com', '*.b.example.com']);
const other = material(['a.example.com']);
const now = Date.now();

test('usable material: the names it covers and its validity, nothing secret', () => {
  const r = inspectTlsData({ 'tls.crt': a.crt, 'tls.key': a.key }, now);
  assert.ok(r?.ok === true);
  assert.deepEqual(r.names, ['a.example.com', '*.b.example.com']);
  assert.equal(r.expiredWhenRead, false);
  assert.ok(Date.parse(r.notAfter) > now);
  const later = inspectTlsData({ 'tls.crt': a.crt, 'tls.key': a.key }, now + 10 * 86_400_000);
  assert.equal(later?.ok === true && later.expiredWhenRead, true, 'expired ten days on');
  assert.doesNotMatch(JSON.stringify(r), /PRIVATE|BEGIN/);
});

test('unusable material is named with the reason, and the reason never quotes the data', () => {
  const garbage = Buffer.from('-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n').toString(
    'base64',
  );
  const table: [data: Record<string, string>, reason: RegExp][] = [
    [{ 'tls.crt': garbage, 'tls.key': a.key }, /tls\.crt is not a PEM or DER X\.509 certificate/],
    [{ 'tls.crt': a.crt, 'tls.key': Buffer.from('junk').toString('base64') }, /tls\.key is not a private key/],
    [{ 'tls.crt': a.crt, 'tls.key': other.key }, /tls\.key does not match the certificate/],
    [{ 'tls.crt': a.crt }, /tls\.key is missing/],
    [{ 'tls.crt': '', 'tls.key': a.key }, /tls\.crt is missing or empty/],
  ];
  for (const [data, reason] of table) {
    const r = inspectTlsData(data, now);
    assert.ok(r?.ok === false, JSON.stringify(r));
    assert.match(r.reason, reason);
    assert.doesNotMatch(r.reason, /BEGIN|not a certificate/);
  }
  assert.equal(inspectTlsData({ 'ca.crt': a.crt }, now), undefined, 'no TLS keys: not inspected');
});
