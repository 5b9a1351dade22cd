import type { CommandIo } from '../adapters/command-io.ts';
import { runApprove } from './approve.ts';
import { runAt } from './at.ts';
import { runDiff } from './diff.ts';
import { runExplain } from './explain.ts';
import { runHistory } from './history.ts';
import { runOperations } from './operations.ts';
import { runReplayApply } from './replay-apply.ts';
import { runResume } from './resume.ts';
import { runRollback } from './rollback.ts';
import { runShow } from './show.ts';
import { runStatus } from './status.ts';

/** An audit command: argv after the command words, the terminal, and the exit code it returns. */
export type AuditCommand = (args: readonly string[], io: CommandIo) => Promise<number>;

/** Every audit command by name (the CLI registers one `portolan` subcommand per entry). */
export const auditCommands = {
  history: runHistory,
  operations: runOperations,
  show: runShow,
  diff: runDiff,
  explain: runExplain,
  at: runAt,
  'replay-apply': runReplayApply,
  approve: runApprove,
  rollback: runRollback,
  resume: runResume,
  status: runStatus,
} as const satisfies Record<string, AuditCommand>;

/** The name of an audit command. */
export type AuditCommandName = keyof typeof auditCommands;
