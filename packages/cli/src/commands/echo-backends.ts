import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.ts';
import { UsageError, usageErrorFrom } from '../command.ts';

/** `portolan echo-backends --listen a:p,b:p`: HTTP servers standing in for pods in the local demo. */
export const echoBackends: CliCommand = {
  path: ['echo-backends'],
  summary: 'serve echo backends on loopback addresses (stand-ins for pods)',
  usage: 'Usage: portolan echo-backends --listen 127.0.10.1:9000,127.0.10.2:9000',
  async run(args) {
    let listen: string;
    try {
      listen = String(
        parseArgs({ args: [...args], options: { listen: { type: 'string' } }, strict: true }).values.listen ?? '',
      );
    } catch (e) {
      usageErrorFrom(e);
    }
    const specs = listen
      .split(',')
      .filter((s) => s !== '')
      .map((s) => {
        const m = /^(\d+\.\d+\.\d+\.\d+):(\d+)$/.exec(s);
        if (m === null) throw new UsageError(`"${s}" is not address:port`);
        return { address: m[1]!, port: Number(m[2]) };
      });
    if (specs.length === 0) throw new UsageError('--listen needs at least one address:port');
    const { startEchoBackends } = await import('@portolan/echo-backend');
    const running = await startEchoBackends(specs);
    process.stdout.write(`echo backends on ${running.backends.map((b) => `${b.address}:${b.port}`).join(', ')}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await running.close();
    return 0;
  },
};
