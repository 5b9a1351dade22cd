// Traces, end to end: one Kubernetes change (an Ingress added with kubectl) gives ONE trace, from the watcher's
// publish through the planner's fold and commit to the applier's cycle and its calls to HAProxy. The pipeline's
// processes export over OTLP/HTTP to a collector this test runs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';
import { endpointSlice, ingress, ingressClass, namespace, service } from './manifests.ts';
import { eventually } from './eventually.ts';

/** One span as the collector received it, with the service that sent it. */
interface ReceivedSpan {
  readonly service: string;
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: {
      spans?: {
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes?: { key: string; value: OtlpValue }[];
      }[];
    }[];
  }[];
}

const valueOf = (v: OtlpValue): string | number | boolean =>
  v.stringValue ?? (v.intValue === undefined ? (v.boolValue ?? '') : Number(v.intValue));

/** A collector of our own: an OTLP/HTTP endpoint that keeps every span of every JSON export it receives. */
async function collector(): Promise<{ url: string; spans: ReceivedSpan[]; close: () => Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const body = JSON.parse(raw.toString('utf8')) as OtlpExport;
      for (const rs of body.resourceSpans ?? []) {
        const name = rs.resource?.attributes?.find((a) => a.key === 'service.name');
        const serviceName = name === undefined ? '' : String(valueOf(name.value));
        for (const s of (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []))
          spans.push({
            service: serviceName,
            name: s.name,
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? '',
            attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
          });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, spans, close: () => new Promise((r) => server.close(() => r())) };
}

const ns = 'traced';
const pod = '127.0.24.1';
let p: Pipeline;
let sink: Awaited<ReturnType<typeof collector>>;

before(async () => {
  sink = await collector();
  p = await startPipeline({
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a'],
      },
    ],
    echoAddresses: [pod],
    // Exported every 100 ms, so the test need not stop the processes to see their spans.
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
  });
  await p.apply(
    namespace(ns) +
      ingressClass('portolan', 'portolan.dev/ingress-controller') +
      service(ns, 'web', p.echoPort) +
      endpointSlice(ns, 'web', [pod], p.echoPort),
  );
  // Everything before the change under test is applied, so its batch folds nothing else that is traced.
  await p.settled('edge');
});
after(async () => {
  await p?.stop();
  await sink?.close();
});

/** The chain from `leaf` up to its trace's root, leaf first (stops where a parent was not received). */
function ancestry(spans: readonly ReceivedSpan[], leaf: ReceivedSpan): ReceivedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain = [leaf];
  for (let s = byId.get(leaf.parentSpanId); s !== undefined; s = byId.get(s.parentSpanId)) chain.push(s);
  return chain;
}

test('one Ingress added gives one trace: watcher publish → planner fold and commit → applier cycle → HAProxy', async () => {
  await p.apply(
    ingress(ns, 'shop', {
      className: 'portolan',
      rules: [{ host: 'traced.example.com', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
    }),
  );
  await eventually(
    'the Ingress to be served',
    async () => assert.equal((await p.request('traced.example.com', '/')).echo?.address, pod),
    { context: () => p.diagnostics() },
  );
  const chain = await eventually(
    'a trace from the Ingress publish to a call to HAProxy',
    () => {
      const published = sink.spans.filter(
        (s) => s.name === 'watcher.publish' && String(s.attributes['portolan.object']).endsWith(`/${ns}/shop`),
      );
      assert.notEqual(published.length, 0, 'the watcher published the Ingress in a span');
      const traces = new Set(published.map((s) => s.traceId));
      const calls = sink.spans.filter(
        (s) => traces.has(s.traceId) && (s.name === 'applier.execute' || s.name === 'applier.execute-all'),
      );
      assert.notEqual(calls.length, 0, 'an applier call to the appliance is in the trace of the Ingress publish');
      return ancestry(sink.spans, calls[0]!);
    },
    { timeoutMs: 15_000, context: () => sink.spans.map((s) => `${s.service} ${s.name} ${s.traceId}`).join('\n') },
  );
  assert.deepEqual(
    chain.map((s) => [s.service, s.name]).reverse(),
    [
      ['watcher', 'watcher.publish'],
      ['planner', 'planner.fold'],
      ['planner', 'planner.commit'],
      ['applier', 'applier.cycle'],
      ['applier', chain[0]!.name],
    ],
    'parent links run from the watcher through the planner to the appliance call',
  );
  assert.equal(new Set(chain.map((s) => s.traceId)).size, 1, 'one trace');
  assert.equal(chain.at(-1)!.parentSpanId, '', "the watcher's publish starts the trace");
  const call = chain[0]!;
  const cycle = chain[1]!;
  assert.equal(call.attributes['portolan.appliance'], p.appliance('edge'));
  assert.equal(call.attributes['portolan.snapshot.id'], cycle.attributes['portolan.snapshot.id']);
  assert.equal(typeof call.attributes['portolan.epoch'], 'number', 'the epoch the call was made under');
  const recorded = await p.db
    .selectFrom('applies')
    .select(['trace_id'])
    .where('snapshot_id', '=', String(cycle.attributes['portolan.snapshot.id']))
    .execute();
  assert.ok(
    recorded.some((r) => r.trace_id === call.traceId),
    'the apply record names the trace',
  );
});
