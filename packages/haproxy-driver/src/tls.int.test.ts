import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { type EchoBackends, startEchoBackends } from '@portolan/echo-backend';
import type { DesiredState } from '@portolan/desired-state';
import { type Harness, freePort, request, selfSignedCertificate, startHarness } from './testing/haproxy-harness.ts';
import { certificate, desired, member, pool, route, service } from './testing/desired-fixtures.ts';

// TLS: certificates by SNI from a crt-list, ssl-redirect, runtime rotation, passthrough by SNI, re-encrypt.
let h: Harness;
let plain: EchoBackends;
let secure: EchoBackends;
const ports = { http: 0, https: 0, passthrough: 0 };

before(async () => {
  h = await startHarness();
  for (const key of Object.keys(ports) as (keyof typeof ports)[]) ports[key] = await freePort();
  h.secrets.material.set('shop-tls', selfSignedCertificate(['shop.test', '*.shop.test'], h.dir));
  h.secrets.material.set('blog-tls', selfSignedCertificate(['blog.test'], h.dir));
  plain = await startEchoBackends([
    { address: '127.0.23.1', port: 0 },
    { address: '127.0.23.2', port: 0 },
  ]);
  secure = await startEchoBackends([
    { address: '127.0.23.3', port: 0, tls: selfSignedCertificate(['db.test', '*.db.test'], h.dir) },
  ]);
});

after(async () => {
  await plain?.close();
  await secure?.close();
  await h?.[Symbol.asyncDispose]();
});

function state(fingerprint = 'fp1', news = false): DesiredState {
  const [shop, blog] = plain.backends;
  const db = secure.backends[0]!;
  return desired({
    pools: [
      pool('shop', [member(shop!.address, shop!.port)]),
      pool('blog', [member(blog!.address, blog!.port)]),
      pool('db', [member(db.address, db.port)]),
      pool('secure-web', [member(db.address, db.port)], { tlsToBackend: true }),
      ...(news ? [pool('news', [member(blog!.address, blog!.port)])] : []),
    ],
    certificates: [
      certificate('shop-tls', ['shop.test', '*.shop.test'], fingerprint),
      certificate('blog-tls', ['blog.test']),
      ...(news ? [certificate('news-tls', ['news.test'])] : []),
    ],
    virtualServices: [
      service('http', ports.http, [], { redirectToHttpsPort: ports.https }),
      service(
        'https',
        ports.https,
        [
          route('shop.test', '/', 'Prefix', 'shop'),
          route('blog.test', '/', 'Prefix', 'blog'),
          route('secure.test', '/', 'Prefix', 'secure-web'),
          ...(news ? [route('news.test', '/', 'Prefix', 'news')] : []),
        ],
        { protocol: 'https', certificates: ['shop-tls', 'blog-tls', ...(news ? ['news-tls'] : [])] },
      ),
      service('pt', ports.passthrough, [route('db.test', '', 'Prefix', 'db'), route('*.db.test', '', 'Prefix', 'db')], {
        protocol: 'tls-passthrough',
      }),
    ],
  });
}

async function applyOk(desiredState: DesiredState): Promise<string[]> {
  const round = await h.apply(desiredState);
  assert.ok(
    round.results.every((r) => r.ok),
    JSON.stringify(round.results),
  );
  assert.deepEqual(await h.pending(desiredState), []);
  return round.operations.map((o) => o.objectType);
}

test('HTTPS serves the certificate matching the SNI from the crt-list, the first one by default, and routes by Host', async () => {
  assert.deepEqual(await applyOk(state()), ['reload']);
  const shop = await request(ports.https, 'shop.test', '/cart', { tls: true });
  assert.equal(shop.certificateCn, 'shop.test');
  assert.equal(shop.echo?.address, '127.0.23.1');
  assert.equal(shop.echo?.forwardedProto, 'https');
  assert.equal((await request(ports.https, 'www.shop.test', '/', { tls: true })).certificateCn, 'shop.test');
  const blog = await request(ports.https, 'blog.test', '/', { tls: true });
  assert.equal(blog.certificateCn, 'blog.test');
  assert.equal(blog.echo?.address, '127.0.23.2');
  assert.equal((await request(ports.https, 'unknown.test', '/', { tls: true })).certificateCn, 'shop.test');
});

test('the HTTP listener answers every request with a 308 to the same host and URI on the HTTPS port', async () => {
  const reply = await request(ports.http, 'shop.test:80', '/a/b?c=d');
  assert.equal(reply.status, 308);
  assert.equal(reply.headers['location'], `https://shop.test:${ports.https}/a/b?c=d`);
  assert.equal(reply.headers['server'], 'portolan');
});

test('re-encrypt: a pool with TLS to its members reaches an HTTPS backend', async () => {
  const reply = await request(ports.https, 'secure.test', '/x', { tls: true });
  assert.equal(reply.status, 200);
  assert.equal(reply.echo?.address, '127.0.23.3');
  assert.equal(reply.echo?.tls, true);
});

test('passthrough routes raw TLS by SNI (exact and wildcard) to a backend that terminates it itself', async () => {
  const exact = await request(ports.passthrough, 'db.test', '/q', { tls: true });
  assert.equal(exact.certificateCn, 'db.test', "the backend's own certificate, not one of HAProxy's");
  assert.equal(exact.echo?.address, '127.0.23.3');
  assert.equal((await request(ports.passthrough, 'replica.db.test', '/', { tls: true })).echo?.address, '127.0.23.3');
  await assert.rejects(() => tlsHandshake(ports.passthrough, 'other.test'));
});

test('new certificate material is swapped in through the Runtime API with zero reloads', async () => {
  const reloads = (await h.driver.showProc()).master.reloads;
  h.secrets.material.set('shop-tls', selfSignedCertificate(['rotated.shop.test', 'shop.test'], h.dir));
  assert.deepEqual(await applyOk(state('fp2')), ['ssl-cert']);
  assert.equal((await request(ports.https, 'shop.test', '/', { tls: true })).certificateCn, 'rotated.shop.test');
  assert.equal((await h.driver.showProc()).master.reloads, reloads);
  const pem = path.join(h.dir, 'certs', 'shop-tls.pem');
  assert.equal(fs.statSync(pem).mode & 0o777, 0o600, 'key material is readable by its owner only');
});

test('a new TLS host with its own Secret and Service goes live through the Runtime API, and leaves the same way', async () => {
  const reloads = (await h.driver.showProc()).master.reloads;
  h.secrets.material.set('news-tls', selfSignedCertificate(['news.test'], h.dir));
  assert.notEqual(await sniCn('news.test'), 'news.test', 'not served before');
  const added = await applyOk(state('fp2', true));
  assert.deepEqual([...new Set(added)].sort(), ['config-slots', 'crt-list', 'file', 'map', 'server', 'ssl-cert']);
  const reply = await request(ports.https, 'news.test', '/', { tls: true });
  assert.equal(reply.certificateCn, 'news.test', 'its certificate is served for its SNI');
  assert.equal(reply.echo?.address, '127.0.23.2');
  assert.equal((await request(ports.https, 'shop.test', '/', { tls: true })).certificateCn, 'rotated.shop.test');

  const removed = await applyOk(state('fp2'));
  assert.deepEqual(
    [...new Set(removed)].filter((k) => k === 'crt-list' || k === 'ssl-cert-del' || k === 'reload'),
    ['crt-list', 'ssl-cert-del'],
    removed.join(),
  );
  assert.ok(!fs.existsSync(path.join(h.dir, 'certs', 'news-tls.pem')), 'its key material is gone from disk');
  assert.notEqual(await sniCn('news.test'), 'news.test', 'its certificate is no longer served');
  assert.equal((await h.driver.showProc()).master.reloads, reloads, 'no reload either way');
});

/** The CN of the certificate the HTTPS listener presents for `servername`. */
async function sniCn(servername: string): Promise<string | null> {
  return (await request(ports.https, servername, '/', { tls: true })).certificateCn;
}

test('no key material appears in operations or results', async () => {
  h.secrets.material.set('shop-tls', selfSignedCertificate(['shop.test'], h.dir));
  const round = await h.apply(state('fp3'));
  const logged = JSON.stringify(round);
  assert.ok(round.results.every((r) => r.ok));
  assert.ok(!logged.includes('PRIVATE KEY') && !logged.includes('BEGIN CERTIFICATE'), logged);
});

function tlsHandshake(port: number, servername: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      socket.destroy();
      resolve();
    });
    socket.setTimeout(3_000, () => socket.destroy(new Error('timeout')));
    socket.on('error', reject);
  });
}
