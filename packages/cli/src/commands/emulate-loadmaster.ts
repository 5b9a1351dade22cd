import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.ts';
import { usageErrorFrom } from '../command.ts';
import { passwordFrom, requiredPort } from './emulator-options.ts';

const usage = `Usage: portolan emulate loadmaster --port <p> [--host 127.0.0.1] [--user bal] (--password <p> | --password-file <f>)
                                [--state <file>] [--rate-limit] [--http]

Runs an emulated Kemp LoadMaster RESTful API (v1 XML and v2 JSON) until interrupted:
v1 (GET/POST /access/<cmd>, XML) and v2 (POST /accessv2, JSON) over one configuration.
  --port        TCP port (0 picks a free one; the address is printed)
  --state       keep the configuration in this file across restarts
  --rate-limit  drop the connection above 30 calls in 3 s, as the appliance does
  --http        serve plain HTTP instead of HTTPS with a fresh self-signed certificate`;

interface Parsed {
  readonly port: number;
  readonly host: string;
  readonly user: string;
  readonly password: string;
  readonly statePath: string | undefined;
  readonly rateLimit: boolean;
  readonly https: boolean;
}

async function parse(args: readonly string[]): Promise<Parsed> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        port: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        user: { type: 'string', default: 'bal' },
        password: { type: 'string' },
        'password-file': { type: 'string' },
        state: { type: 'string' },
        'rate-limit': { type: 'boolean', default: false },
        http: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    usageErrorFrom(error);
  }
  const port = requiredPort(values.port);
  const password = await passwordFrom(values.password, values['password-file']);
  return {
    port,
    host: values.host,
    user: values.user,
    password,
    statePath: values.state,
    rateLimit: values['rate-limit'],
    https: !values.http,
  };
}

/** `portolan emulate loadmaster`: a standalone Kemp LoadMaster REST API emulator for demos and manual testing. */
export const emulateLoadmaster: CliCommand = {
  path: ['emulate', 'loadmaster'],
  summary: 'run an emulated Kemp LoadMaster RESTful API (v1 XML and v2 JSON)',
  usage,
  async run(args) {
    const o = await parse(args);
    const { startLoadMasterEmulator } = await import('@portolan/loadmaster-emulator');
    const emulator = await startLoadMasterEmulator({
      port: o.port,
      host: o.host,
      users: { [o.user]: o.password },
      rateLimit: o.rateLimit,
      https: o.https,
      ...(o.statePath === undefined ? {} : { statePath: o.statePath }),
    });
    process.stdout.write(
      `LoadMaster API emulator listening on ${emulator.url} (user ${o.user}${o.rateLimit ? ', rate limit 30/3s' : ''}${o.statePath === undefined ? '' : `, state ${o.statePath}`})\n`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await emulator.close();
    return 0;
  },
};
