import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configSkeleton, isSameStructure } from './config-skeleton.ts';

const config = (server: string, extra = ''): string =>
  `global\n    master-worker\n\nbackend http:web\n    mode http\n${extra}    ${server}\n    server s2 127.0.0.1:1 disabled weight 1\n`;

const cases = [
  {
    name: 'identical text',
    a: config('server s1 10.0.0.1:80 enabled weight 1'),
    b: config('server s1 10.0.0.1:80 enabled weight 1'),
    same: true,
  },
  {
    name: 'another member in a slot',
    a: config('server s1 10.0.0.1:80 enabled weight 1'),
    b: config('server s1 [::1]:8080 disabled weight 7'),
    same: true,
  },
  {
    name: 'slot options differ (cookie)',
    a: config('server s1 10.0.0.1:80 enabled weight 1'),
    b: config('server s1 10.0.0.1:80 enabled weight 1 cookie s1'),
    same: false,
  },
  {
    name: 'a slot renamed',
    a: config('server s1 10.0.0.1:80 enabled weight 1'),
    b: config('server s3 10.0.0.1:80 enabled weight 1'),
    same: false,
  },
  {
    name: 'a line added',
    a: config('server s1 10.0.0.1:80 enabled weight 1'),
    b: config('server s1 10.0.0.1:80 enabled weight 1', '    balance source\n'),
    same: false,
  },
];

for (const c of cases) {
  test(`structure: ${c.name} → ${c.same ? 'same' : 'different'} (and agrees with configSkeleton)`, () => {
    assert.equal(isSameStructure(c.a, c.b), c.same);
    assert.equal(configSkeleton(c.a) === configSkeleton(c.b), c.same);
  });
}
