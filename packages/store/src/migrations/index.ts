import type { Migration } from 'kysely';
import * as m0001 from './0001-initial.ts';

/**
 * All migrations, in order. Add a file `NNNN-name.ts` exporting `up` and list it here; never edit a
 * migration that has shipped.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  '0001-initial': m0001,
};
