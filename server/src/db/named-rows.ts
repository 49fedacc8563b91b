import type { Database } from './database';

/** The elements of a JSON array parameter as rows of one column, `value`. */
export const jsonElements = (db: Database, param: string) =>
	db.dialect === 'postgres' ? `SELECT value FROM json_array_elements_text(${param}::json) AS value` : `SELECT value FROM json_each(${param})`;

/**
 * `columns` (as `t.column`) of the rows of `table` whose ids are in a JSON array parameter, in an
 * organization: `$1` the organization, `$2` the ids. The ids drive the read, one primary-key probe
 * each (CROSS JOIN keeps SQLite from reordering). Written as `organization_id = $1 AND id IN (…)`,
 * SQLite's planner, which has no statistics, read the organization's whole index instead: 0.5–1 s
 * for one id among 1,000,000 users (docs/benchmarks.md, Groups and assignments).
 */
export const namedRows = (db: Database, table: string, columns: string) =>
	`SELECT ${columns} FROM (${jsonElements(db, '$2')}) ids CROSS JOIN ${table} t WHERE t.id = ids.value AND t.organization_id = $1`;
