import { PortolanError } from '@portolan/errors';

/** One `portolan` subcommand. `run` returns the process exit code; it throws only for bugs. */
export interface CliCommand {
  /** The words that select it, e.g. `['stack', 'up']` or `['kube-sim']`. */
  readonly path: readonly string[];
  /** One line for `portolan help`. */
  readonly summary: string;
  /** Usage text printed for `--help`. */
  readonly usage: string;
  run(args: readonly string[]): Promise<number>;
}

/** A CLI usage mistake: printed with the command's usage, exit code 2. */
export class UsageError extends PortolanError {
  readonly code = 'CLI_USAGE';
}

/** Turns parseArgs' rejection of a command line (a TypeError, code ERR_PARSE_ARGS_*) into a UsageError; rethrows anything else. */
export function usageErrorFrom(e: unknown): never {
  if (e instanceof TypeError) throw new UsageError(e.message, { cause: e });
  throw e;
}
