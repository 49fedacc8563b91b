import type { QueryInterface } from 'sequelize';

/**
 * Exact list totals without counting: `list_counts` holds, per organization, how many rows each
 * list shows with each counted filter, and database triggers keep it in the writing transaction.
 * Triggers rather than application code, so every writer is covered (API, settings pages, CLI,
 * seed, demo activity, bulk loads) and nobody has to remember to call anything. On PostgreSQL the
 * counter row is locked by the first writer until it commits, so concurrent writers add up
 * exactly; on SQLite writers take turns anyway.
 *
 * `filter` is the list's query in a fixed order ('' for no filter), e.g. 'role=student' or
 * 'course=crs_…&status=active' (see db/list-counts.ts, which reads them).
 */

export interface Counted {
	table: string;
	/** The columns whose change moves a row between counters. */
	columns: string[];
	/** SQL expressions over a row (`r` stands for NEW or OLD): the counters it is in. */
	filters: (r: string) => string[];
	/** Only rows the list shows are counted. */
	shown?: (r: string) => string;
}

export const COUNTED: Counted[] = [
	{ table: 'users', columns: ['organization_id', 'role'], filters: (r) => [`''`, `'role=' || ${r}.role`] },
	{
		table: 'courses',
		columns: ['organization_id', 'status'],
		filters: () => [`''`],
		shown: (r) => `${r}.status = 'published'`,
	},
	{
		table: 'enrollments',
		columns: ['organization_id', 'course_id', 'status'],
		filters: (r) => [
			`''`,
			`'status=' || ${r}.status`,
			`'course=' || ${r}.course_id`,
			`'course=' || ${r}.course_id || '&status=' || ${r}.status`,
		],
	},
	{ table: 'certificates', columns: ['organization_id', 'course_id'], filters: (r) => [`''`, `'course=' || ${r}.course_id`] },
];

/** Adds `delta` to each counter the row `r` is in (valid in a SQLite trigger and in PL/pgSQL). */
export function bumps({ table, filters, shown }: Counted, r: 'NEW' | 'OLD', delta: 1 | -1): string {
	return filters(r)
		.map(
			(filter) =>
				`INSERT INTO list_counts (organization_id, list, filter, n) SELECT ${r}.organization_id, '${table}', ${filter}, ${delta} WHERE ${shown?.(r) ?? 'true'}
				ON CONFLICT (organization_id, list, filter) DO UPDATE SET n = list_counts.n + excluded.n;`,
		)
		.join('\n');
}

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	// One transaction: the table, its triggers and the backfill appear together or not at all.
	await qi.sequelize.transaction(async (transaction) => {
		const sql = (text: string) => qi.sequelize.query(text, { transaction });
		await createCounters(sql, qi.sequelize.getDialect() === 'postgres');
	});
}

/** PostgreSQL: the row-level trigger of this migration (replaced by statement-level ones in 0010). */
export async function createRowTrigger(sql: (text: string) => Promise<unknown>, counted: Counted): Promise<void> {
	const changed = counted.columns.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ');
	await sql(`CREATE FUNCTION ${counted.table}_list_counts() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF TG_OP = 'UPDATE' AND NOT (${changed}) THEN RETURN NULL; END IF;
			IF TG_OP IN ('UPDATE', 'DELETE') THEN ${bumps(counted, 'OLD', -1)} END IF;
			IF TG_OP IN ('UPDATE', 'INSERT') THEN ${bumps(counted, 'NEW', 1)} END IF;
			RETURN NULL;
		END $$`);
	await sql(`CREATE TRIGGER ${counted.table}_list_counts AFTER INSERT OR DELETE OR UPDATE OF ${counted.columns.join(', ')}
		ON ${counted.table} FOR EACH ROW EXECUTE FUNCTION ${counted.table}_list_counts()`);
}

async function createCounters(sql: (text: string) => Promise<unknown>, pg: boolean): Promise<void> {
	await sql(`CREATE TABLE list_counts (
		organization_id VARCHAR(40) NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
		list VARCHAR(20) NOT NULL,
		filter VARCHAR(120) NOT NULL,
		n BIGINT NOT NULL,
		PRIMARY KEY (organization_id, list, filter)
	)`);
	if (pg) {
		// Rows written while the backfill runs would be counted twice or not at all.
		await sql(`LOCK TABLE ${COUNTED.map((c) => c.table).join(', ')} IN SHARE ROW EXCLUSIVE MODE`);
	}
	for (const counted of COUNTED) {
		if (pg) {
			await createRowTrigger(sql, counted);
		} else {
			const sqliteChanged = counted.columns.map((c) => `OLD.${c} IS NOT NEW.${c}`).join(' OR ');
			await sql(`CREATE TRIGGER ${counted.table}_list_counts_insert AFTER INSERT ON ${counted.table} BEGIN ${bumps(counted, 'NEW', 1)} END`);
			await sql(`CREATE TRIGGER ${counted.table}_list_counts_delete AFTER DELETE ON ${counted.table} BEGIN ${bumps(counted, 'OLD', -1)} END`);
			await sql(`CREATE TRIGGER ${counted.table}_list_counts_update AFTER UPDATE OF ${counted.columns.join(', ')} ON ${counted.table}
				WHEN ${sqliteChanged} BEGIN ${bumps(counted, 'OLD', -1)} ${bumps(counted, 'NEW', 1)} END`);
		}
		// The rows already there (an upgraded database).
		for (const filter of counted.filters('t')) {
			await sql(`INSERT INTO list_counts (organization_id, list, filter, n)
				SELECT t.organization_id, '${counted.table}', ${filter}, COUNT(*) FROM ${counted.table} t WHERE ${counted.shown?.('t') ?? 'true'}
				GROUP BY t.organization_id${filter === "''" ? '' : `, ${filter}`}`);
		}
	}
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	const pg = qi.sequelize.getDialect() === 'postgres';
	for (const { table } of COUNTED) {
		if (pg) {
			await qi.sequelize.query(`DROP TRIGGER ${table}_list_counts ON ${table}`);
			await qi.sequelize.query(`DROP FUNCTION ${table}_list_counts()`);
		} else {
			for (const op of ['insert', 'delete', 'update']) await qi.sequelize.query(`DROP TRIGGER ${table}_list_counts_${op}`);
		}
	}
	await qi.dropTable('list_counts');
}
