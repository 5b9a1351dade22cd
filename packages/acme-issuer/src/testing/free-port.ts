import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/**
 * Ports for external programs that cannot be told to listen on port 0 (Pebble, pebble-challtestsrv): the OS
 * picks a free port, which is released and handed over. Another process could take it in between; the window
 * is a few milliseconds and the harness reports a clear error if it happens.
 */

/** A TCP port free on `host` right now. */
export function freeTcpPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A port free for both UDP and TCP on `host` (a DNS server listens on both). */
export async function freeUdpAndTcpPort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = await new Promise<number>((resolve, reject) => {
      const socket = createSocket('udp4');
      socket.once('error', reject);
      socket.bind(0, host, () => {
        const { port: p } = socket.address();
        socket.close(() => resolve(p));
      });
    });
    const tcpFree = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, host, () => server.close(() => resolve(true)));
    });
    if (tcpFree) return port;
  }
  throw new Error('no port free for both UDP and TCP after 20 attempts');
}
