import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { startEchoBackends, type EchoBackends } from '@portolan/echo-backend';
import type { ConformanceBackend, ConformanceFeature, ConformanceRequest } from './conformance-feature.ts';
import { eventually } from './eventually.ts';
import type { Reply } from './http-client.ts';
import { selfSignedCertificate } from './manifests.ts';
import type { Pipeline } from './pipeline-harness.ts';

/**
 * The cluster side of the Ingress conformance runner, as upstream's steps do it: a random namespace per feature, a
 * "deployment" (echo pods, Service, EndpointSlice) per Service the Ingress references, the Ingress, status waits,
 * scaling, and the namespace's deletion, on one long-lived pipeline.
 */

/** One echo pod: a loopback address playing the pod IP. */
export interface ConformancePod {
  readonly name: string;
  readonly address: string;
}

/** A feature set up in its namespace. */
export interface FeatureRun {
  readonly feature: ConformanceFeature;
  readonly namespace: string;
  readonly pods: Map<string, ConformancePod[]>;
  readonly echo: EchoBackends[];
}

/** Where the runner's echo pods listen and which IngressClass is under test. */
export interface ClusterOptions {
  readonly className: string;
  readonly echoPort: number;
  /** The logical appliance name the pipeline serves the class on. */
  readonly appliance: string;
}

/** Drives one pipeline's simulated cluster through conformance features. */
export class ConformanceCluster {
  private readonly p: Pipeline;
  private readonly o: ClusterOptions;
  private nextAddress = 0;

  constructor(p: Pipeline, options: ClusterOptions) {
    this.p = p;
    this.o = options;
  }

  /** Namespace, Secrets, pods, Services, EndpointSlices, then the Ingress (upstream creates it last). */
  async setUp(feature: ConformanceFeature): Promise<FeatureRun> {
    const namespace = `conformance-${feature.file.replace(/\.yaml$/, '').replaceAll('_', '-')}-${randomBytes(3).toString('hex')}`;
    const run: FeatureRun = { feature, namespace, pods: new Map(), echo: [] };
    try {
      await this.p.apply(doc({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
      for (const s of feature.secrets) {
        const cert = selfSignedCertificate(s.hosts);
        try {
          await this.p.kubectl([
            'create',
            'secret',
            'tls',
            s.name,
            '-n',
            namespace,
            '--cert',
            cert.certFile,
            '--key',
            cert.keyFile,
          ]);
        } finally {
          cert.dispose();
        }
      }
      for (const b of feature.backends) await this.deploy(run, b, 1);
      const spec = { ingressClassName: this.o.className, ...feature.ingress.spec };
      await this.p.apply(
        doc({
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          metadata: { name: feature.ingress.metadata.name, namespace },
          spec,
        }),
      );
    } catch (error) {
      // Listening echo pods would keep the test process alive after a failed set-up.
      await Promise.all(run.echo.map((e) => e.close()));
      throw error;
    }
    return run;
  }

  /** Upstream's "The Ingress status shows the IP address or FQDN where it is exposed": HAProxy's listen address. */
  async assertExposed(run: FeatureRun): Promise<void> {
    const addresses = await eventually(
      `Ingress ${run.namespace}/${run.feature.ingress.metadata.name} to show an address`,
      async () => {
        const found = await this.statusAddresses(run.namespace, run.feature.ingress.metadata.name);
        assert.ok(found.length > 0, 'no address in status.loadBalancer.ingress');
        return found;
      },
      { timeoutMs: 60_000, context: () => this.p.diagnostics() },
    );
    assert.deepEqual(addresses, ['127.0.0.1'], 'the status shows where HAProxy listens');
  }

  /**
   * Upstream's "The Ingress status should not contain the IP address or FQDN". Upstream waits out its 5 minute status
   * timeout; instead a marker Ingress of the class under test is applied after it and waited for: Ingress events are
   * folded in order, so once the marker is served and has its status, the pipeline has decided on the feature's one.
   */
  async assertNotExposed(run: FeatureRun): Promise<void> {
    const backend = run.feature.backends[0];
    assert.ok(backend !== undefined, 'the feature references a Service for the marker to use');
    const marker = 'conformance-marker';
    await this.p.apply(
      doc({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: marker, namespace: run.namespace },
        spec: {
          ingressClassName: this.o.className,
          rules: [
            {
              host: marker,
              http: {
                paths: [
                  {
                    path: '/',
                    pathType: 'Prefix',
                    backend: { service: { name: backend.service, port: backend.port } },
                  },
                ],
              },
            },
          ],
        },
      }),
    );
    await eventually(
      'the marker Ingress to be served and show an address',
      async () => {
        const r = await this.send({ method: 'GET', scheme: 'http', host: marker, path: '/', count: 1, headers: {} });
        assert.equal(r.echo?.context?.service, backend.service);
        assert.ok((await this.statusAddresses(run.namespace, marker)).length > 0);
      },
      { timeoutMs: 60_000, context: () => this.p.diagnostics() },
    );
    assert.deepEqual(
      await this.statusAddresses(run.namespace, run.feature.ingress.metadata.name),
      [],
      'the Ingress status shows no address',
    );
  }

  /** Scales a Service's pods (upstream scales its Deployment): more echo pods, a bigger EndpointSlice. */
  async scale(run: FeatureRun, service: string, replicas: number): Promise<void> {
    const backend = run.feature.backends.find((b) => b.service === service);
    assert.ok(backend !== undefined, `no Service ${service} in this feature`);
    await this.deploy(run, backend, replicas);
  }

  /** One request as upstream's client sends it: to HAProxy's address, with the scenario's Host (or the address). */
  send(request: ConformanceRequest): Promise<Reply> {
    const https = request.scheme === 'https';
    const host = request.host === '' ? `127.0.0.1:${https ? this.p.httpsPort : this.p.httpPort}` : request.host;
    return this.p.request(host, request.path, { https, method: request.method, headers: request.headers });
  }

  /**
   * Deletes the namespace (the simulator deletes its objects, as the namespace controller does) and waits until HAProxy
   * routes none of the feature's requests: each gets a 404 from no backend, or a refused connection (HAProxy closes a
   * listener no Ingress uses). An explicit deletion is never held by the safety rule, so no operator step is needed.
   */
  async tearDown(run: FeatureRun, routed: readonly ConformanceRequest[]): Promise<void> {
    try {
      await this.p.kubectl(['delete', 'namespace', run.namespace]);
      await eventually(
        `HAProxy to stop routing namespace ${run.namespace}`,
        async () => {
          for (const request of routed) {
            const r = await this.send(request).catch((e: unknown) => {
              if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') return null;
              throw e;
            });
            if (r !== null)
              assert.ok(
                r.status === 404 && r.echo === null,
                `${describeRequest(request)} still answers ${r.status} ${r.echo?.context?.pod ?? ''}`,
              );
          }
        },
        { timeoutMs: 30_000, context: () => this.p.diagnostics() },
      );
      await this.p.settled(this.o.appliance);
    } finally {
      await Promise.all(run.echo.map((e) => e.close()));
    }
  }

  private async statusAddresses(namespace: string, name: string): Promise<string[]> {
    const out = await this.p.kubectl(['get', 'ingress', name, '-n', namespace, '-o', 'json']);
    const ingress = JSON.parse(out) as {
      status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
    };
    return (ingress.status?.loadBalancer?.ingress ?? []).flatMap((a) =>
      [a.ip, a.hostname].filter((x): x is string => x !== undefined && x !== ''),
    );
  }

  /**
   * Brings a Service to `replicas` pods as upstream's echo Deployment and Service templates do: the Service port is
   * the Ingress's number (8080 when it names the port), named when the Ingress uses a name; the EndpointSlice port
   * carries the Service port's name ('' when unnamed), as the EndpointSlice controller writes it.
   */
  private async deploy(run: FeatureRun, backend: ConformanceBackend, replicas: number): Promise<void> {
    const { namespace, feature } = run;
    const pods = run.pods.get(backend.service) ?? [];
    const added: ConformancePod[] = [];
    const deployment = `${feature.ingress.metadata.name}-${backend.service}`;
    while (pods.length + added.length < replicas)
      added.push({ name: `${deployment}-${randomBytes(3).toString('hex')}`, address: this.address() });
    if (added.length > 0) {
      run.echo.push(
        await startEchoBackends(
          added.map((pod) => ({
            address: pod.address,
            port: this.o.echoPort,
            context: { namespace, ingress: feature.ingress.metadata.name, service: backend.service, pod: pod.name },
          })),
        ),
      );
    }
    pods.push(...added);
    run.pods.set(backend.service, pods);
    const portName = 'name' in backend.port ? backend.port.name : undefined;
    const servicePort = {
      ...(portName === undefined ? {} : { name: portName }),
      port: 'number' in backend.port ? backend.port.number : 8080,
      targetPort: this.o.echoPort,
      protocol: 'TCP',
    };
    await this.p.apply(
      [
        doc({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: backend.service, namespace },
          spec: { type: 'ClusterIP', selector: { app: deployment }, ports: [servicePort] },
        }),
        doc({
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: {
            name: `${backend.service}-${namespace.slice(-6)}`,
            namespace,
            labels: { 'kubernetes.io/service-name': backend.service },
          },
          addressType: 'IPv4',
          ports: [{ name: portName ?? '', port: this.o.echoPort, protocol: 'TCP' }],
          endpoints: pods.map((pod) => ({
            addresses: [pod.address],
            conditions: { ready: true, serving: true, terminating: false },
            targetRef: { kind: 'Pod', namespace, name: pod.name },
          })),
        }),
      ].join(''),
    );
  }

  /** A fresh loopback address per pod for the whole suite, so a stale route to an earlier feature's pod shows. */
  private address(): string {
    const n = this.nextAddress++;
    return `127.0.${90 + Math.floor(n / 250)}.${1 + (n % 250)}`;
  }
}

/** A request as a log line: method, scheme, Host (or `<address>`) and path. */
export function describeRequest(r: ConformanceRequest): string {
  return `${r.method} ${r.scheme}://${r.host === '' ? '<address>' : r.host}${r.path}`;
}

function doc(object: unknown): string {
  return `---\n${stringify(object)}`;
}
