import type { Migration } from 'kysely';
import * as m0001 from './0001-initial.ts';
import * as m0002 from './0002-leader-incarnation.ts';
import * as m0003 from './0003-snapshot-pins.ts';
import * as m0004 from './0004-snapshot-approvals.ts';
import * as m0005 from './0005-commit-one.ts';
import * as m0006 from './0006-apply-operations-tree.ts';
import * as m0007 from './0007-removal-holds.ts';
import * as m0008 from './0008-operator-actions.ts';

/**
 * All migrations, in order. Add a file `NNNN-name.ts` exporting `up` and list it here; never edit a
 * migration that has shipped.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  '0001-initial': m0001,
  '0002-leader-incarnation': m0002,
  '0003-snapshot-pins': m0003,
  '0004-snapshot-approvals': m0004,
  '0005-commit-one': m0005,
  '0006-apply-operations-tree': m0006,
  '0007-removal-holds': m0007,
  '0008-operator-actions': m0008,
};
