// Counts the vTM REST calls the driver makes for a one-endpoint change with N Ingresses (default 1000):
// `node packages/vtm-driver/src/scripts/count-api-calls.ts [N]`. Runs against the emulator on a free port.
import type { ExecutionContext, Operation } from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import { startVtmEmulator } from '@portolan/vtm-emulator';
import { desiredState, ingress, member, pool, route, virtualService } from '../testing/desired-fixtures.ts';
import { VtmDriver } from '../vtm-driver.ts';

const count = Number(process.argv[2] ?? 1000);

/** N Ingresses, each on its own address with one host, one backend pool of three endpoints. */
function world(changedEndpoint: boolean): DesiredState {
  const virtualServices = [];
  const pools = [];
  for (let i = 0; i < count; i += 1) {
    const name = `ns${i % 10}.app${i}`;
    virtualServices.push(
      virtualService({
        name,
        address: { kind: 'dedicated', ip: `10.${100 + Math.floor(i / 250)}.${i % 250}.1` },
        owners: [ingress(`app${i}`, `ns${i % 10}`)],
        routes: [route(`app${i}.example.com`, '/', 'Prefix', name)],
      }),
    );
    const last = i === 0 && changedEndpoint ? '10.2.0.99' : `10.2.${i % 250}.3`;
    pools.push(pool(name, { members: [member(`10.2.${i % 250}.1`), member(`10.2.${i % 250}.2`), member(last)] }));
  }
  return desiredState({ virtualServices, pools });
}

const emulator = await startVtmEmulator({ users: { admin: 'admin' }, machines: ['tm-1'] });
const driver = new VtmDriver({ appliance: 'vtm', url: emulator.url, username: 'admin', password: 'admin' });
const context: ExecutionContext = {
  epoch: 1,
  secrets: { resolve: () => Promise.reject(new Error('no certificates in this scenario')) },
  signal: new AbortController().signal,
};
const run = async (ops: readonly Operation[]): Promise<void> => {
  for (const op of ops) {
    const result = await driver.execute(op, context);
    if (!result.ok) throw new Error(`${op.summary}: ${result.code} ${result.message}`);
  }
};
try {
  const signal = new AbortController().signal;
  await run(driver.diff(driver.render(world(false)), await driver.readBack(signal)));
  const objects = emulator.writeLog.length;

  const before = emulator.requestLog.length;
  const observed = await driver.readBack(signal);
  const readCalls = emulator.requestLog.length - before;
  const ops = driver.diff(driver.render(world(true)), observed);
  const beforeWrites = emulator.requestLog.length;
  await run(ops);
  const writeCalls = emulator.requestLog.length - beforeWrites;

  process.stdout.write(
    `vTM driver, one-endpoint change with ${count} Ingresses (${objects} owned objects on the appliance):\n`,
  );
  process.stdout.write(
    `  operations from diff: ${ops.length} (${ops
      .slice(0, 5)
      .map((o) => o.summary)
      .join('; ')}${ops.length > 5 ? '; …' : ''})\n`,
  );
  process.stdout.write(`  write calls:          ${writeCalls}\n`);
  process.stdout.write(`  read-back calls:      ${readCalls} (7 lists + one GET per owned-looking object)\n`);
  process.stdout.write(`  total API calls:      ${readCalls + writeCalls}\n`);
} finally {
  await driver.close();
  await emulator.close();
}
