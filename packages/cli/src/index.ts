export { main } from './main.ts';
export type { CliCommand } from './command.ts';
export { UsageError } from './command.ts';
