import type { CliCommand } from '../command.ts';

/**
 * Every subcommand, one module each. Commands load their implementation lazily so that
 * `portolan help` does not pay for every dependency.
 */
export const commands: readonly CliCommand[] = [
  // (stack commands are registered below as they are implemented)
];
