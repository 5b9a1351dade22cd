import { commands } from './commands/index.ts';
import { UsageError, type CliCommand } from './command.ts';

/** Finds the command whose path is the longest prefix of argv. */
function selectCommand(argv: readonly string[]): { command: CliCommand; rest: readonly string[] } | null {
  let best: CliCommand | null = null;
  for (const c of commands) {
    const matches = c.path.every((word, i) => argv[i] === word);
    if (matches && (best === null || c.path.length > best.path.length)) best = c;
  }
  return best === null ? null : { command: best, rest: argv.slice(best.path.length) };
}

function help(): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length), 8);
  const lines = commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return `portolan — Kubernetes to external load balancers, with history.\n\nUsage: portolan <command> [options]\n\nCommands:\n${lines.join('\n')}\n`;
}

/** Runs the CLI for argv (without node and script) and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(help());
    return argv.length === 0 ? 2 : 0;
  }
  const selected = selectCommand(argv);
  if (selected === null) {
    process.stderr.write(`portolan: unknown command "${argv.join(' ')}"\n\n${help()}`);
    return 2;
  }
  const { command, rest } = selected;
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`portolan ${command.path.join(' ')}: ${error.message}\n\n${command.usage}\n`);
      return 2;
    }
    throw error;
  }
}
