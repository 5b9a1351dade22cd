import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startEchoBackends, type EchoReply } from './start-echo-backends.ts';

function get(address: string, port: number, path: string, headers: Record<string, string>): Promise<EchoReply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: address, port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(JSON.parse(body) as EchoReply));
    });
    req.on('error', reject);
    req.end();
  });
}

test('each echo backend answers from its own address and reports host, path and X-Forwarded-For', async () => {
  await using echo = await startEchoBackends([
    { address: '127.0.3.1', port: 0 },
    { address: '127.0.3.2', port: 0 },
  ]);
  const [a, b] = echo.backends;
  assert.ok(a && b && a.port > 0 && b.port > 0);
  const fromA = await get(a.address, a.port, '/foo?x=1', { host: 'shop.example', 'x-forwarded-for': '10.1.2.3' });
  const fromB = await get(b.address, b.port, '/bar', { host: 'api.example' });
  assert.deepEqual(fromA, {
    address: '127.0.3.1',
    port: a.port,
    tls: false,
    method: 'GET',
    host: 'shop.example',
    path: '/foo?x=1',
    forwardedFor: '10.1.2.3',
    forwardedProto: '',
  });
  assert.equal(fromB.address, '127.0.3.2');
  assert.equal(fromB.host, 'api.example');
  assert.equal(fromB.forwardedFor, '');
  assert.equal(a.requests, 1);
});

test('a backend given a context also reports the protocol, the request headers and who answered', async () => {
  const context = { namespace: 'ns-1', ingress: 'web', service: 'echo-service', pod: 'web-echo-service-0' };
  await using echo = await startEchoBackends([
    { address: '127.0.3.3', port: 0, context },
    { address: '127.0.3.4', port: 0 },
  ]);
  const [described, plain] = echo.backends;
  assert.ok(described && plain);
  const reply = await get(described.address, described.port, '/p', { host: 'h.example', 'user-agent': 'probe/1' });
  assert.deepEqual(reply.context, context);
  assert.equal(reply.proto, 'HTTP/1.1');
  assert.deepEqual(reply.headers?.['user-agent'], ['probe/1']);
  const other = await get(plain.address, plain.port, '/p', { host: 'h.example' });
  assert.deepEqual(
    Object.keys(other).sort(),
    ['address', 'forwardedFor', 'forwardedProto', 'host', 'method', 'path', 'port', 'tls'],
    'without a context the reply keeps its shape',
  );
});

test('a backend given a context sets the response headers X-Echo-Set-Header asks for', async () => {
  const context = { namespace: 'ns-1', ingress: '', service: 'echo', pod: 'echo-0' };
  await using echo = await startEchoBackends([{ address: '127.0.3.5', port: 0, context }]);
  const [backend] = echo.backends;
  assert.ok(backend);
  const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
    const req = http.request(
      {
        host: backend.address,
        port: backend.port,
        path: '/',
        agent: false,
        headers: { 'x-echo-set-header': 'X-Header-Set: set, X-Other:a:b,junk' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers));
      },
    );
    req.on('error', reject);
    req.end();
  });
  assert.equal(headers['x-header-set'], 'set');
  assert.equal(headers['x-other'], 'a:b');
  assert.equal(headers.junk, undefined);
});
