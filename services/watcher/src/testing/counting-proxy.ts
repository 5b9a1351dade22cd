// A TCP pass-through that counts connections (tests only): how many are open now, at most, and in total.
import net from 'node:net';

/** A running counting proxy. */
export interface CountingProxy {
  readonly port: number;
  readonly open: number;
  readonly maxOpen: number;
  readonly total: number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:0 and forwards every connection to `targetPort`. */
export async function startCountingProxy(targetPort: number): Promise<CountingProxy> {
  let open = 0;
  let maxOpen = 0;
  let total = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    total++;
    open++;
    maxOpen = Math.max(maxOpen, open);
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let closed = false;
    const done = (): void => {
      if (closed) return;
      closed = true;
      open--;
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', done).on('close', done);
    upstream.on('error', done).on('close', done);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get open() { return open; },
    get maxOpen() { return maxOpen; },
    get total() { return total; },
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
