import type { CliCommand } from '../command.ts';
import { emulateVtm } from './emulate-vtm.ts';
import { emulateLoadmaster } from './emulate-loadmaster.ts';
import { stackDown, stackStatus, stackUp } from './stack.ts';
import { up, down } from './up.ts';
import { echoBackends } from './echo-backends.ts';
import { replayVerifyCommand } from './replay-verify.ts';
import { leaderStatus } from './leader-status.ts';
import { kubeSim } from './kube-sim.ts';
import { watch } from './watch.ts';
import { planCommand } from './plan.ts';

/**
 * Every subcommand, one module each. Commands load their implementation lazily so that
 * `portolan help` does not pay for every dependency.
 */
export const commands: readonly CliCommand[] = [
  up,
  down,
  stackUp,
  stackDown,
  stackStatus,
  emulateVtm,
  emulateLoadmaster,
  echoBackends,
  replayVerifyCommand,
  leaderStatus,
  kubeSim,
  watch,
  planCommand,
];
