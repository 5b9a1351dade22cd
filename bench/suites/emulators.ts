import type { ApplianceDriver, ExecutionContext, Operation, OperationResult } from '@portolan/appliance-driver';
import type { KubeObject } from '@portolan/kube-sim';
import { LoadMasterDriver } from '@portolan/loadmaster-driver';
import { startLoadMasterEmulator } from '@portolan/loadmaster-emulator';
import { Planner } from '@portolan/planner';
import { VtmDriver } from '@portolan/vtm-driver';
import { startVtmEmulator } from '@portolan/vtm-emulator';
import type { Benchmark, Figure } from '../figure.ts';
import { benchFleet, EventFeed } from '../support/planner-feed.ts';
import { endpointSlice, ingress, ingressClass, service, type ClassName } from '../support/world.ts';

const config = benchFleet([
  {
    name: 'vtm',
    driver: 'vtm',
    ingressControllers: ['pulsesecure.net/vtm-ingress-controller'],
    vtm: { url: 'http://unused', username: 'admin', passwordFile: 'unused' },
  },
  {
    name: 'lm',
    driver: 'loadmaster',
    ingressControllers: ['portolan.dev/loadmaster'],
    loadmaster: { url: 'https://unused', username: 'bal', passwordFile: 'unused', mode: 'ingress' },
  },
]);

/** Ingress i of a vendor: its own address, as the vTM integration's ip-address and LoadMaster's vsip annotations describe. */
function vendorIngress(i: number, cls: ClassName): KubeObject {
  const ip = `10.${cls === 'vtm' ? 100 : 101}.${(i >> 8) & 255}.${i & 255}`;
  return ingress(i, {
    cls,
    annotations: cls === 'vtm' ? { 'vtm.pulsesecure.net/ip-address': ip } : { 'kemp.ax/vsip': ip },
  });
}

/** What one appliance's driver sent for one change: calls by kind, wall time of the cycle, and the render it applied. */
interface CycleCount {
  readonly reads: number;
  readonly writes: number;
  readonly operations: number;
  readonly ms: number;
  readonly rendered: unknown;
}

type Desired = Parameters<ApplianceDriver<unknown>['render']>[0];

/**
 * One applier cycle (render, read back, diff, execute) against an emulator; `calls()` counts the emulator's log.
 * With `applied` (the render a fully successful apply left), the cycle reads back as the applier's hot path does:
 * nothing when the driver's render is what the appliance then holds, only the changed objects when it offers a
 * targeted read-back, everything otherwise. Without it, everything (start-up, retries, drift checks).
 */
async function cycle(
  driver: ApplianceDriver<unknown>,
  desired: Desired,
  calls: () => { reads: number; writes: number },
  applied?: unknown,
): Promise<CycleCount> {
  const context: ExecutionContext = {
    epoch: 1,
    secrets: { resolve: () => Promise.reject(new Error('no certificates in this benchmark')) },
    signal: new AbortController().signal,
  };
  const before = calls();
  const t0 = performance.now();
  const next = driver.render(desired, applied ?? null);
  const hot = applied !== undefined && driver.capabilities.renderMatchesReadBack;
  const observed = hot ? applied : await driver.readBack(context.signal);
  const ops = driver.diff(next, observed);
  const results = driver.capabilities.batchExecution
    ? await driver.executeAll(ops, context)
    : await executeEach(driver, ops, context);
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0)
    throw new Error(`${failed.length} of ${ops.length} operations failed: ${JSON.stringify(failed[0])}`);
  const after = calls();
  return {
    reads: after.reads - before.reads,
    writes: after.writes - before.writes,
    operations: ops.length,
    ms: performance.now() - t0,
    rendered: next,
  };
}

async function executeEach(
  driver: ApplianceDriver<unknown>,
  ops: readonly Operation[],
  context: ExecutionContext,
): Promise<OperationResult[]> {
  const out: OperationResult[] = [];
  for (const op of ops) out.push(await driver.execute(op, context));
  return out;
}

/**
 * vTM and LoadMaster (Ingress mode): API calls one applier cycle makes for a one-endpoint change with 1k Ingresses
 * (each on its own address), planned by the real planner core and pushed by the real drivers to the emulators.
 */
export const emulatorsBench: Benchmark = {
  name: 'emulators',
  async run({ quick, log }) {
    const n = quick ? 100 : 1000;
    const at = `with ${n >= 1000 ? `${n / 1000}k` : n} Ingresses${quick ? ' (quick)' : ''}`;
    const feed = new EventFeed();
    const planner = new Planner(config);
    const cls = (i: number): ClassName => (i < n ? 'vtm' : 'loadmaster');
    for (const c of ['vtm', 'loadmaster'] as const) planner.applyEvent(feed.event(ingressClass(c)));
    for (let i = 0; i < 2 * n; i++)
      for (const o of [service(i), endpointSlice(i), vendorIngress(i, cls(i))]) planner.applyEvent(feed.event(o));
    planner.planDirty();

    const vtmEmu = await startVtmEmulator({ users: { admin: 'admin' }, machines: ['tm-1'] });
    const lmEmu = await startLoadMasterEmulator({ port: 0, users: { bal: 'bench' } });
    const vtm = new VtmDriver({
      appliance: 'vtm',
      url: vtmEmu.url,
      username: 'admin',
      password: 'admin',
      machines: ['tm-1'],
    });
    // The initial load of 1k Ingresses is not what is measured: it runs without the 25-calls-per-3-s throttle.
    const lmLoader = new LoadMasterDriver({
      appliance: 'lm',
      url: lmEmu.url,
      credentials: { user: 'bal', password: 'bench' },
      insecureTls: true,
      maxCallsPer3s: 1_000_000,
      defaultAddress: null,
    });
    const lm = new LoadMasterDriver({
      appliance: 'lm',
      url: lmEmu.url,
      credentials: { user: 'bal', password: 'bench' },
      insecureTls: true,
      maxCallsPer3s: 25,
      defaultAddress: null,
    });
    const vtmCalls = (): { reads: number; writes: number } => ({
      reads: vtmEmu.requestLog.filter((r) => r.method === 'GET').length,
      writes: vtmEmu.requestLog.filter((r) => r.method !== 'GET').length,
    });
    // The emulator logs every accepted call, and separately the successful writes.
    const lmCalls = (): { reads: number; writes: number } => ({
      reads: lmEmu.calls.length - lmEmu.writeLog.length,
      writes: lmEmu.writeLog.length,
    });
    try {
      const loadV = await cycle(vtm, planner.desiredState('vtm')!, vtmCalls);
      const loadL = await cycle(lmLoader, planner.desiredState('lm')!, lmCalls);
      log(
        `initial load: vTM ${loadV.operations} operations in ${(loadV.ms / 1000).toFixed(1)} s; LoadMaster ${loadL.operations} operations in ${(loadL.ms / 1000).toFixed(1)} s`,
      );
      // One endpoint of one Service of each vendor moves, twice: the first change as the applier's hot path runs it
      // after the fully successful load, the second with a full read-back.
      const figures: Figure[] = [];
      let afterV = loadV.rendered;
      let afterL = loadL.rendered;
      for (const [gen, path] of [
        [1, 'as the applier runs it after a clean apply'],
        [2, 'with a full read-back (start-up, retry, drift check)'],
      ] as const) {
        planner.applyEvent(feed.event(endpointSlice(0, gen), 'MODIFIED'));
        planner.applyEvent(feed.event(endpointSlice(n, gen), 'MODIFIED'));
        planner.planDirty();
        const hot = gen === 1;
        const v = await cycle(vtm, planner.desiredState('vtm')!, vtmCalls, hot ? afterV : undefined);
        const l = await cycle(lm, planner.desiredState('lm')!, lmCalls, hot ? afterL : undefined);
        afterV = v.rendered;
        afterL = l.rendered;
        log(
          `one-endpoint change, ${path}: vTM ${v.reads} reads + ${v.writes} writes (${v.operations} operations) in ${v.ms.toFixed(0)} ms; LoadMaster ${l.reads} reads + ${l.writes} writes (${l.operations} operations) in ${l.ms.toFixed(0)} ms`,
        );
        figures.push(
          {
            name: `vTM: API calls per one-endpoint change ${at}, ${path} (reads + writes)`,
            unit: 'calls',
            value: v.reads + v.writes,
          },
          { name: `vTM: of which writes ${at}, ${path}`, unit: 'calls', value: v.writes },
          {
            name: `LoadMaster: API calls per one-endpoint change ${at}, ${path} (reads + writes)`,
            unit: 'calls',
            value: l.reads + l.writes,
          },
          { name: `LoadMaster: of which writes ${at}, ${path}`, unit: 'calls', value: l.writes },
        );
      }
      return figures;
    } finally {
      await Promise.allSettled([vtm.close(), lm.close(), lmLoader.close()]);
      await Promise.allSettled([vtmEmu.close(), lmEmu.close()]);
    }
  },
};
