import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

/** The kube stream's bounds, or why they could not be read. */
export type StreamInfo =
  | { readonly ok: true; readonly stream: string; readonly firstSeq: number; readonly lastSeq: number; readonly messages: number }
  | { readonly ok: false; readonly stream: string; readonly message: string };

/** Reads a JetStream stream's state without provisioning anything (status must not create streams). */
export async function readStreamInfo(url: string, stream: string, timeoutMs = 3000): Promise<StreamInfo> {
  let nc;
  try {
    nc = await connect({ servers: url, name: 'portolan-status', timeout: timeoutMs, maxReconnectAttempts: 0 });
  } catch (e) {
    return { ok: false, stream, message: `cannot connect to NATS at ${url}: ${(e as Error).message}` };
  }
  try {
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
    const info = await jsm.streams.info(stream);
    return { ok: true, stream, firstSeq: info.state.first_seq, lastSeq: info.state.last_seq, messages: info.state.messages };
  } catch (e) {
    return { ok: false, stream, message: `stream ${stream}: ${(e as Error).message}` };
  } finally {
    await nc.close().catch(() => undefined);
  }
}
