import { readFileSync, statSync } from 'node:fs';
import { summarize, type Benchmark, type Figure } from '../figure.ts';
import { SlotWatch, waitServed } from '../support/haproxy-probe.ts';
import { createPipeline, type Pipeline } from '../support/pipeline.ts';
import { backendsByService, ChangeSequence, waitCaughtUp } from '../support/pipeline-phases.ts';
import { waitUntil } from '../support/processes.ts';
import { endpointSlice, hostOf, ingress, prng, service, worldObjects } from '../support/world.ts';

const SERVICES = 50;

/**
 * Applier failover on real processes with the fleet-config default lease (TTL 4 s, renew 1 s, retry 0.5 s): the
 * leading applier is stopped (SIGTERM: graceful, it releases the lease; an EndpointSlice changes once it has exited)
 * or killed (SIGKILL: crash; the EndpointSlice changes at that instant); the figure runs from the signal until
 * HAProxy holds the change, written by the other replica. The stopped replica is restarted as the next follower,
 * so leadership alternates.
 */
export const failoverBench: Benchmark = {
  name: 'failover',
  async run({ quick, log }) {
    const rounds = quick ? 1 : 5;
    const tag = quick ? ' (quick)' : '';
    const p = await createPipeline({ objects: [] });
    try {
      const probe = p.echo.backends[0]!;
      for (const o of [
        ...worldObjects(SERVICES),
        service(SERVICES),
        endpointSlice(SERVICES, 0, { addresses: [probe.address], port: probe.port }),
        ingress(SERVICES),
      ])
        p.sim.objects.create(o);
      p.startAll();
      await waitServed(p.httpPort, hostOf(SERVICES), probe.address, 120_000, { periodMs: 50 });
      await waitCaughtUp(p);
      await new Promise((r) => setTimeout(r, 2000)); // no cycle in flight when the first leader is stopped
      const backends = await backendsByService(p.haproxy.runtimeSocket, SERVICES);
      const changes = new ChangeSequence(SERVICES, prng(7));
      const samples = { graceful: [] as number[], crash: [] as number[] };
      for (let r = 0; r < 2 * rounds; r++) {
        const kind = r % 2 === 0 ? 'graceful' : 'crash';
        const ms = await failoverRound(p, kind, backends, changes, log);
        samples[kind].push(ms);
      }
      const figure = (kind: 'graceful' | 'crash', goal: string): Figure => {
        const s = summarize(samples[kind]);
        return {
          name: `${kind === 'graceful' ? 'graceful (SIGTERM)' : 'crash (SIGKILL)'} → first write by the new leader, ${rounds} round${rounds > 1 ? 's' : ''}${tag}`,
          unit: 's',
          value: s.median / 1000,
          p99: s.p99 / 1000,
          goal,
        };
      };
      return [figure('graceful', '≤ 2'), figure('crash', '≤ 6')];
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${p.logs()}`, { cause: e });
    } finally {
      await p.stop();
    }
  },
};

async function leaderOf(p: Pipeline): Promise<string> {
  return waitUntil(
    'a leader',
    async () => {
      const row = await p.db.db
        .selectFrom('leader_epochs')
        .select('holder')
        .where('group_name', '=', p.appliance)
        .executeTakeFirst();
      return row?.holder;
    },
    30_000,
    20,
  );
}

/** One failover: stop or kill the leader, change an endpoint at once, time until HAProxy has it; returns ms. */
async function failoverRound(
  p: Pipeline,
  kind: 'graceful' | 'crash',
  backends: ReadonlyMap<number, string>,
  changes: ChangeSequence,
  log: (line: string) => void,
): Promise<number> {
  const leader = await leaderOf(p);
  const follower = leader === 'a' ? 'b' : 'a';
  const leaderProc = p.processes.get(`applier-${leader}`)!;
  const epochBefore = await p.db.db
    .selectFrom('leader_epochs')
    .select('epoch')
    .where('group_name', '=', p.appliance)
    .executeTakeFirstOrThrow();
  const watch = new SlotWatch(p.haproxy.runtimeSocket);
  try {
    const change = changes.next();
    const t0 = performance.now();
    leaderProc.child.kill(kind === 'graceful' ? 'SIGTERM' : 'SIGKILL');
    // A leader stopping gracefully finishes its running cycle, which may pick up a change made meanwhile: the change
    // is made once it has exited, so only the new leader can write it. A killed leader writes nothing more.
    if (kind === 'graceful') await leaderProc.exited;
    p.sim.objects.update(endpointSlice(change.i, change.gen));
    const t1 = await watch.waitReady(backends.get(change.i)!, change.address, 30_000, 5);
    await leaderProc.exited;
    await waitCaughtUp(p);
    const last = await p.db.db
      .selectFrom('applies')
      .select(['leader_id', 'epoch'])
      .where('appliance', '=', p.appliance)
      .where('status', '=', 'succeeded')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    if (last.leader_id !== follower)
      throw new Error(`the change was applied by ${last.leader_id}, not by the follower ${follower}`);
    const elected = await p.db.db
      .selectFrom('leader_epoch_history')
      .select('acquired_at')
      .where('group_name', '=', p.appliance)
      .where('epoch', '>', epochBefore.epoch)
      .orderBy('epoch')
      .executeTakeFirst();
    const electedMs =
      elected === undefined ? NaN : new Date(elected.acquired_at).getTime() - (performance.timeOrigin + t0);
    log(
      `${kind}: ${leader} → ${follower} wrote after ${(t1 - t0).toFixed(0)} ms (new epoch granted after ~${electedMs.toFixed(0)} ms)`,
    );
    // The stopped replica comes back as the next round's follower.
    const offset = statSync(leaderProc.logFile).size;
    const restarted = p.start(`applier-${leader}`);
    await waitUntil(
      `applier-${leader} to start`,
      () => readFileSync(restarted.logFile).subarray(offset).toString('utf8').includes('applier started'),
      30_000,
      50,
    );
    await new Promise((r) => setTimeout(r, 1000));
    return t1 - t0;
  } finally {
    await watch.close();
  }
}
