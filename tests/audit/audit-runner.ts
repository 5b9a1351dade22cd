// Runs one audit command in-process with captured output, as `portolan <command>` would from a shell.
import { auditCommands, type AuditCommandName, type CommandIo } from '@portolan/audit';

/** A command's captured output. */
export interface CommandRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** How the caller looks to the command: a terminal or not, and what it answers when asked. */
export interface RunOptions {
  readonly stdinIsTty?: boolean;
  readonly answer?: string;
  /** The environment the command sees (e.g. PORTOLAN_TOKEN for the commands that write); empty by default. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs `command` with `--config configFile` and `args` in `cwd`; a non-terminal caller unless told otherwise. */
export async function runAuditCommand(
  configFile: string,
  cwd: string,
  command: AuditCommandName,
  args: readonly string[],
  options: RunOptions = {},
): Promise<CommandRun> {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    stdinIsTty: options.stdinIsTty ?? false,
    stderrIsTty: false,
    ask: async (q) => {
      stderr += q;
      return options.answer ?? '';
    },
    now: () => new Date(),
    env: options.env ?? {},
    cwd,
  };
  const code = await auditCommands[command](['--config', configFile, ...args], io);
  return { code, stdout, stderr };
}
