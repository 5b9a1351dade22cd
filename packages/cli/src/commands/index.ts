import type { CliCommand } from '../command.ts';
import { emulateVtm } from './emulate-vtm.ts';
import { emulateLoadmaster } from './emulate-loadmaster.ts';
import { stackDown, stackStatus, stackUp } from './stack.ts';
import { up, down } from './up.ts';
import { echoBackends } from './echo-backends.ts';
import { replayVerifyCommand } from './replay-verify.ts';
import { approve } from './approve.ts';
import { leaderStatus } from './leader-status.ts';
import { kubeSim } from './kube-sim.ts';
import { watch } from './watch.ts';
import { planCommand } from './plan.ts';

import { history } from './history.ts';
import { operations } from './operations.ts';
import { show } from './show.ts';
import { diff } from './diff.ts';
import { explain } from './explain.ts';
import { at } from './at.ts';
import { replayApply } from './replay-apply.ts';
import { rollback } from './rollback.ts';
import { resume } from './resume.ts';
import { status } from './status.ts';
import { consoleCommand, consoleToken } from './console.ts';

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
  approve,
  leaderStatus,
  kubeSim,
  watch,
  planCommand,
  history,
  operations,
  show,
  diff,
  explain,
  at,
  replayApply,
  rollback,
  resume,
  status,
  consoleCommand,
  consoleToken,
];
