import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { HeaderValueError, WireHeaders } from './wire-headers.ts';

test('the header block is the one the NATS client would write for the same headers, and reads back like its headers', () => {
  const pairs: [string, string][] = [
    ['Nats-Msg-Id', 'ev:prod:7f0c2a1e:123:MODIFIED'],
    ['traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'],
    ['tracestate', 'a=b,c=d'],
  ];
  const ours = new WireHeaders(pairs);
  const theirs = natsHeaders();
  for (const [k, v] of pairs) theirs.append(k, v);
  assert.deepEqual(ours.encode(), (theirs as unknown as { encode(): Uint8Array }).encode());
  assert.equal(ours.get('traceparent'), theirs.get('traceparent'));
  assert.deepEqual(ours.keys(), theirs.keys());
  ours.set('tracestate', 'x=y');
  assert.deepEqual(ours.values('tracestate'), ['x=y']);
  assert.deepEqual(
    [...ours].map(([k]) => k),
    ['Nats-Msg-Id', 'traceparent', 'tracestate'],
  );
});

test('a value with CR or LF (header injection) or an invalid name is refused', () => {
  assert.throws(() => new WireHeaders([['Nats-Msg-Id', 'a\r\nNats-Expected-Stream: x']]), HeaderValueError);
  assert.throws(() => new WireHeaders([['bad name', 'v']]), HeaderValueError);
});
