// A TCP fault proxy for tests (toxiproxy is not available here). It forwards bytes between a client and a
// target until told to blackhole: then the connections open at that moment stay open and silently stop carrying
// bytes in both directions — a half-open connection, an LB idle cut without FIN/RST, an API server lost behind a
// VIP: a watch that stalls silently. Connections opened afterwards work normally, so a client that abandons the dead one recovers.
import net from 'node:net';

/** A running fault proxy. */
export interface FaultProxy {
  readonly port: number;
  /** Connections open now. */
  readonly open: number;
  /** Most connections open at once. */
  readonly maxOpen: number;
  /** Connections accepted in total. */
  readonly total: number;
  /** Blackholed connections still open (the client has not given up on them yet). */
  readonly blackholed: number;
  /** Stops forwarding on every connection open now, keeping them open; returns how many were blackholed. */
  blackhole(): number;
  close(): Promise<void>;
}

interface Link {
  readonly client: net.Socket;
  readonly upstream: net.Socket;
  dead: boolean;
}

/** Forwards one accepted connection to 127.0.0.1:`targetPort` until either side ends, unless blackholed. */
function forward(client: net.Socket, targetPort: number, links: Set<Link>): void {
  const link: Link = { client, upstream: net.connect(targetPort, '127.0.0.1'), dead: false };
  links.add(link);
  const done = (): void => {
    if (!links.delete(link)) return;
    client.destroy();
    link.upstream.destroy();
  };
  // Forward by hand (no pipe) so a blackholed link can swallow what arrives while both sockets stay open.
  client.on('data', (chunk) => {
    if (!link.dead) link.upstream.write(chunk);
  });
  link.upstream.on('data', (chunk) => {
    if (!link.dead) client.write(chunk);
  });
  for (const s of [client, link.upstream])
    s.on('error', done)
      .on('close', done)
      .on('end', () => {
        if (!link.dead) done();
      });
}

/** Listens on 127.0.0.1:0 and forwards every connection to 127.0.0.1:`targetPort`. */
export async function startFaultProxy(targetPort: number): Promise<FaultProxy> {
  let maxOpen = 0;
  let total = 0;
  const links = new Set<Link>();
  const server = net.createServer((client) => {
    total++;
    forward(client, targetPort, links);
    maxOpen = Math.max(maxOpen, links.size);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get open() {
      return links.size;
    },
    get maxOpen() {
      return maxOpen;
    },
    get total() {
      return total;
    },
    get blackholed() {
      return [...links].filter((l) => l.dead).length;
    },
    blackhole() {
      let n = 0;
      for (const l of links)
        if (!l.dead) {
          l.dead = true;
          n++;
        }
      return n;
    },
    close: () =>
      new Promise((resolve) => {
        for (const l of links) {
          l.client.destroy();
          l.upstream.destroy();
        }
        links.clear();
        server.close(() => resolve());
      }),
  };
}
