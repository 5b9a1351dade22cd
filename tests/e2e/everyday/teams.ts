// The day, part 1 (steps 01–13): teams arrive and leave, Services scale, Ingresses, namespaces and slices come and go.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answers, p, pod, servedBy, team, who, within } from '../everyday-day.ts';
import { endpointSlice, ingress, service } from '../manifests.ts';

test('01 a team arrives: its Ingress is served by its pods', async () => {
  await p.apply(team('team-a', ['a.example.com'], [pod(1), pod(2)]));
  await servedBy('a.example.com', [pod(1), pod(2)]);
});

test('02 two teams arrive at once', async () => {
  await p.apply(
    team(
      'team-b',
      ['b1.example.com', 'b2.example.com', 'b3.example.com', 'b4.example.com', 'b5.example.com'],
      [pod(3)],
    ) + team('team-c', ['c.example.com'], [pod(4)]),
  );
  await servedBy('b5.example.com', [pod(3)]);
  await servedBy('c.example.com', [pod(4)]);
});

test('03 a Service scales up: the new pod takes traffic', async () => {
  await p.apply(endpointSlice('team-a', 'web', [pod(1), pod(2), pod(5)], p.echoPort));
  await within('pod 5 in rotation', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) seen.add(await who('a.example.com'));
    assert.ok(seen.has(pod(5)), [...seen].join(','));
  });
});

test('04 a Service scales to zero: 503, and it is not held by the safety rule', async () => {
  await p.apply(endpointSlice('team-a', 'web', [], p.echoPort));
  await answers('a.example.com', 503);
});

test('05 the Service scales back: served again', async () => {
  await p.apply(endpointSlice('team-a', 'web', [pod(1), pod(2)], p.echoPort));
  await servedBy('a.example.com', [pod(1), pod(2)]);
});

test('06 an Ingress is deleted: 404', async () => {
  await p.kubectl(['delete', 'ingress', 'web', '-n', 'team-c']);
  await answers('c.example.com', 404);
});

test('07 it is re-created under the same name with other paths', async () => {
  await p.apply(
    ingress('team-c', 'web', {
      className: 'portolan',
      rules: [{ host: 'c.example.com', paths: [{ path: '/shop', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await within('c.example.com/shop served', async () => assert.equal(await who('c.example.com', '/shop/cart'), pod(4)));
  assert.equal(await who('c.example.com', '/'), 'status 404', 'only /shop is routed now');
});

test('08 a namespace holding most of the hosts is deleted: its hosts go, and nothing freezes', async () => {
  await p.kubectl(['delete', 'namespace', 'team-b']);
  await answers('b1.example.com', 404);
  await answers('b5.example.com', 404);
  await servedBy('a.example.com', [pod(1), pod(2)]);
});

test('09 right after that deletion a new Ingress goes live', async () => {
  await p.apply(
    ingress('team-c', 'blog', {
      className: 'portolan',
      rules: [{ host: 'blog.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await servedBy('blog.example.com', [pod(4)]);
});

test('10 an Ingress edited to drop hosts: the dropped ones go, the kept one stays', async () => {
  await p.apply(
    team(
      'team-d',
      ['d1.example.com', 'd2.example.com', 'd3.example.com', 'd4.example.com', 'd5.example.com'],
      [pod(6)],
    ),
  );
  await servedBy('d5.example.com', [pod(6)]);
  await p.apply(
    ingress('team-d', 'web', {
      className: 'portolan',
      rules: [{ host: 'd1.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await answers('d5.example.com', 404);
  await servedBy('d1.example.com', [pod(6)]);
});

test('11 several teams leave at once', async () => {
  await p.apply(team('team-e', ['e.example.com'], [pod(7)]) + team('team-f', ['f.example.com'], [pod(8)]));
  await servedBy('e.example.com', [pod(7)]);
  await servedBy('f.example.com', [pod(8)]);
  await p.kubectl(['delete', 'namespace', 'team-d', 'team-e', 'team-f', '--wait=false']);
  for (const host of ['d1.example.com', 'e.example.com', 'f.example.com']) await answers(host, 404);
  await servedBy('blog.example.com', [pod(4)]);
});

test('12 a Service is deleted: 503; re-created: served', async () => {
  await p.kubectl(['delete', 'service', 'web', '-n', 'team-c']);
  await answers('blog.example.com', 503);
  await p.apply(service('team-c', 'web', p.echoPort));
  await servedBy('blog.example.com', [pod(4)]);
});

test('13 an EndpointSlice is deleted and re-created', async () => {
  await p.kubectl(['delete', 'endpointslice', 'web-1', '-n', 'team-c']);
  await answers('blog.example.com', 503);
  await p.apply(endpointSlice('team-c', 'web', [pod(9)], p.echoPort));
  await servedBy('blog.example.com', [pod(9)]);
});
