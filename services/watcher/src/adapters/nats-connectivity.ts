import type { NatsEventBus } from '@portolan/bus';

/**
 * Tracks whether the bus connection is up from the client's status stream, so the publisher holds retries while
 * NATS is down instead of piling copies into the client's reconnect buffer.
 */
export function natsConnectivity(bus: NatsEventBus, onChange?: (up: boolean) => void): { connected: () => boolean } {
  let up = !bus.connection.isClosed();
  void (async () => {
    for await (const s of bus.connection.status()) {
      if (s.type === 'disconnect' || s.type === 'close') up = false;
      else if (s.type === 'reconnect') up = true;
      else continue;
      onChange?.(up);
    }
  })().catch(() => {
    // The status stream only fails with the connection itself: report the link down for good.
    up = false;
    onChange?.(false);
  });
  return { connected: () => up && !bus.connection.isClosed() };
}
