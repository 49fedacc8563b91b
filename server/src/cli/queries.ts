import { MIGRATIONS_TABLE } from '../db';

/** How many migrations the database records: none means nobody set it up (cli/context.ts refuseEmpty). */
export const APPLIED_MIGRATIONS = `SELECT COUNT(*) AS n FROM ${MIGRATIONS_TABLE}`;
