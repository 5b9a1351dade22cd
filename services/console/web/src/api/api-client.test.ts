/// <reference types="node" />
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiUrl } from './api-client.ts';
import { reconnectDelayMs } from './live-events.ts';

test('apiUrl repeats array parameters and leaves empty ones out', () => {
  assert.equal(apiUrl('/status'), '/api/v1/status');
  assert.equal(
    apiUrl('/appliances/edge/history', { since: '-1h', until: '', object: undefined, kind: ['snapshot', 'apply'] }),
    '/api/v1/appliances/edge/history?since=-1h&kind=snapshot&kind=apply',
  );
  assert.equal(
    apiUrl('/appliances/edge/explain', { q: 'a.example.com/x?y' }),
    '/api/v1/appliances/edge/explain?q=a.example.com%2Fx%3Fy',
  );
});

test('reconnect backoff doubles from 1 s, caps at 30 s, and spreads ±25 %', () => {
  assert.equal(reconnectDelayMs(0, 0.5), 1000);
  assert.equal(reconnectDelayMs(3, 0.5), 8000);
  assert.equal(reconnectDelayMs(10, 0.5), 30_000);
  assert.equal(reconnectDelayMs(0, 0), 750);
  assert.equal(reconnectDelayMs(0, 1), 1250);
});
