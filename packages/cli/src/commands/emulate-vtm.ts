import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.ts';
import { usageErrorFrom } from '../command.ts';
import { passwordFrom, requiredPort } from './emulator-options.ts';

const usage = `Usage: portolan emulate vtm --port <p> [--host 127.0.0.1] [--user admin] (--password-file <f> | --password <p>)
                         [--state <file>] [--audit-log <file>] [--strict] [--https] [--machines tm-1,tm-2]

Runs an emulated Traffic Manager REST API 8.3 until interrupted.
  --port       TCP port (0 picks a free one; the address is printed)
  --state      keep the configuration in this file across restarts
  --audit-log  append every write to this file, one JSON line each, with the epoch and snapshot it carried
  --strict     refuse dangling references and deleting objects in use
  --https      serve HTTPS with a fresh self-signed certificate, as a real appliance does
  --machines   traffic manager names of the emulated cluster (default vtm-1)`;

interface Parsed {
  readonly port: number;
  readonly host: string;
  readonly user: string;
  readonly password: string;
  readonly statePath: string | undefined;
  readonly auditLogPath: string | undefined;
  readonly strict: boolean;
  readonly https: boolean;
  readonly machines: string[];
}

async function parse(args: readonly string[]): Promise<Parsed> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        user: { type: 'string', default: 'admin' },
        password: { type: 'string' },
        'password-file': { type: 'string' },
        state: { type: 'string' },
        'audit-log': { type: 'string' },
        strict: { type: 'boolean', default: false },
        https: { type: 'boolean', default: false },
        machines: { type: 'string', default: 'vtm-1' },
      },
      strict: true,
    }));
  } catch (error) {
    usageErrorFrom(error);
  }
  const port = requiredPort(values.port);
  const password = await passwordFrom(values.password, values['password-file']);
  const machines = values.machines
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  return {
    port,
    host: values.host,
    user: values.user,
    password,
    statePath: values.state,
    auditLogPath: values['audit-log'],
    strict: values.strict,
    https: values.https,
    machines,
  };
}

/** `portolan emulate vtm`: a standalone vTM REST API emulator for demos and manual testing. */
export const emulateVtm: CliCommand = {
  path: ['emulate', 'vtm'],
  summary: 'run an emulated vTM (Traffic Manager) REST API 8.3',
  usage,
  async run(args) {
    const o = await parse(args);
    const { startVtmEmulator } = await import('@portolan/vtm-emulator');
    const emulator = await startVtmEmulator({
      port: o.port,
      host: o.host,
      users: { [o.user]: o.password },
      strict: o.strict,
      https: o.https,
      machines: o.machines,
      ...(o.statePath === undefined ? {} : { statePath: o.statePath }),
      ...(o.auditLogPath === undefined ? {} : { auditLogPath: o.auditLogPath }),
    });
    process.stdout.write(
      `vTM REST API emulator listening on ${emulator.url} (user ${o.user}${o.strict ? ', strict' : ''}${o.statePath === undefined ? '' : `, state ${o.statePath}`})\n`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await emulator.close();
    return 0;
  },
};
