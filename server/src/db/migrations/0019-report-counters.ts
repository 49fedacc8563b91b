import type { QueryInterface } from 'sequelize';

/**
 * Counters for the completion report's clock-bound columns (SPEC §17; reports/course-completion.ts),
 * so that it no longer counts hundreds of thousands of index entries per request (1.2 s on SQLite
 * with 1,000,000 enrollments, 125,000 of them overdue and 135,000 certificates expired or ending).
 * Kept by triggers in the writing transaction, like the list counters of 0009/0010 (same table,
 * same locking, so concurrent writers add up exactly); a clock cannot fire a trigger, so each
 * counter counts a fact a write establishes and the report adds the little the clock has moved:
 *
 * - `enrollments`, `course=…&overdue=true`: active enrollments marked overdue (overdue_notified_at
 *   set, which only happens once due_at has passed and is undone when due_at moves to the future
 *   or is cleared: enrollments/overdue.ts). The report adds the active ones past due and not yet
 *   marked (the sweep's backlog, normally under a minute's worth) from the partial index below.
 * - `certificates`, `course=…&expires=YYYY-MM`: certificates by month of expiry (UTC). Expired =
 *   the months before this one + this month's up to now; expiring within 30 days = the range
 *   (now, now + 30 days]; both ranges are at most two months of certificates in
 *   certificates_org_expiry.
 */

/*
 * The counter SQL of 0009 (bumps: SQLite's row triggers) and 0010 (deltas, applyDeltas:
 * PostgreSQL's statement triggers) as it was when this migration shipped: carried here, not
 * imported, so that this migration never changes.
 */

interface Counted {
	table: string;
	columns: string[];
	filters: (r: string) => string[];
	shown?: (r: string) => string;
}

function bumps({ table, filters, shown }: Counted, r: 'NEW' | 'OLD', delta: 1 | -1): string {
	return filters(r)
		.map(
			(filter) =>
				`INSERT INTO list_counts (organization_id, list, filter, n) SELECT ${r}.organization_id, '${table}', ${filter}, ${delta} WHERE ${shown?.(r) ?? 'true'}
				ON CONFLICT (organization_id, list, filter) DO UPDATE SET n = list_counts.n + excluded.n;`,
		)
		.join('\n');
}

function deltas({ filters, shown }: Counted, rows: 'new_rows' | 'old_rows', delta: 1 | -1): string {
	return filters('r')
		.map((filter) => `SELECT r.organization_id, ${filter} AS filter, ${delta} AS delta FROM ${rows} r WHERE ${shown?.('r') ?? 'true'}`)
		.join(' UNION ALL ');
}

function applyDeltas(counted: Counted, parts: string[]): string {
	return `INSERT INTO list_counts (organization_id, list, filter, n)
		SELECT organization_id, '${counted.table}', filter, SUM(delta) FROM (${parts.join(' UNION ALL ')}) d
		GROUP BY organization_id, filter HAVING SUM(delta) <> 0 ORDER BY organization_id, filter
		ON CONFLICT (organization_id, list, filter) DO UPDATE SET n = list_counts.n + excluded.n;`;
}

const month = (pg: boolean) => (column: string) =>
	pg ? `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM')` : `strftime('%Y-%m', ${column})`;

/** `pattern`: a LIKE matching the counter rows, for down(). */
function counted(pg: boolean): Array<Counted & { name: string; pattern: string }> {
	return [
		{
			name: 'enrollments_overdue_counts',
			pattern: `'course=%&overdue=true'`,
			table: 'enrollments',
			columns: ['organization_id', 'course_id', 'status', 'overdue_notified_at'],
			filters: (r) => [`'course=' || ${r}.course_id || '&overdue=true'`],
			shown: (r) => `${r}.status = 'active' AND ${r}.overdue_notified_at IS NOT NULL`,
		},
		{
			name: 'certificates_expiry_counts',
			pattern: `'course=%&expires=%'`,
			table: 'certificates',
			columns: ['organization_id', 'course_id', 'expires_at'],
			filters: (r) => [`'course=' || ${r}.course_id || '&expires=' || ${month(pg)(`${r}.expires_at`)}`],
			shown: (r) => `${r}.expires_at IS NOT NULL`,
		},
	];
}

/** The sweep's backlog per organization and course, read by the report without a table row. */
const OWED_BY_COURSE = `CREATE INDEX enrollments_overdue_owed_by_course ON enrollments (organization_id, due_at, course_id)
	WHERE status = 'active' AND due_at IS NOT NULL AND overdue_notified_at IS NULL`;

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	const pg = qi.sequelize.getDialect() === 'postgres';
	// One transaction: triggers and backfill appear together or not at all.
	await qi.sequelize.transaction(async (transaction) => {
		const sql = (text: string) => qi.sequelize.query(text, { transaction });
		// Rows written while the backfill runs would be counted twice or not at all.
		if (pg) await sql('LOCK TABLE enrollments, certificates IN SHARE ROW EXCLUSIVE MODE');
		for (const c of counted(pg)) {
			if (pg) {
				// Per statement with transition tables, as 0010 explains (a bulk statement moves each counter once).
				await sql(`CREATE FUNCTION ${c.name}_statement() RETURNS trigger LANGUAGE plpgsql AS $$
					BEGIN
						IF TG_OP = 'INSERT' THEN ${applyDeltas(c, [deltas(c, 'new_rows', 1)])}
						ELSIF TG_OP = 'DELETE' THEN ${applyDeltas(c, [deltas(c, 'old_rows', -1)])}
						ELSE ${applyDeltas(c, [deltas(c, 'old_rows', -1), deltas(c, 'new_rows', 1)])}
						END IF;
						RETURN NULL;
					END $$`);
				await sql(`CREATE TRIGGER ${c.name}_insert AFTER INSERT ON ${c.table}
					REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${c.name}_statement()`);
				await sql(`CREATE TRIGGER ${c.name}_update AFTER UPDATE ON ${c.table}
					REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${c.name}_statement()`);
				await sql(`CREATE TRIGGER ${c.name}_delete AFTER DELETE ON ${c.table}
					REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${c.name}_statement()`);
			} else {
				const changed = c.columns.map((col) => `OLD.${col} IS NOT NEW.${col}`).join(' OR ');
				await sql(`CREATE TRIGGER ${c.name}_insert AFTER INSERT ON ${c.table} BEGIN ${bumps(c, 'NEW', 1)} END`);
				await sql(`CREATE TRIGGER ${c.name}_delete AFTER DELETE ON ${c.table} BEGIN ${bumps(c, 'OLD', -1)} END`);
				await sql(`CREATE TRIGGER ${c.name}_update AFTER UPDATE OF ${c.columns.join(', ')} ON ${c.table}
					WHEN ${changed} BEGIN ${bumps(c, 'OLD', -1)} ${bumps(c, 'NEW', 1)} END`);
			}
			// The rows already there (an upgraded database).
			const [filter] = c.filters('t');
			await sql(`INSERT INTO list_counts (organization_id, list, filter, n)
				SELECT t.organization_id, '${c.table}', ${filter}, COUNT(*) FROM ${c.table} t WHERE ${c.shown!('t')}
				GROUP BY t.organization_id, ${filter}`);
		}
		await sql(OWED_BY_COURSE);
	});
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	const pg = qi.sequelize.getDialect() === 'postgres';
	await qi.sequelize.transaction(async (transaction) => {
		const sql = (text: string) => qi.sequelize.query(text, { transaction });
		await sql('DROP INDEX enrollments_overdue_owed_by_course');
		for (const c of counted(pg)) {
			for (const op of ['insert', 'update', 'delete']) await sql(`DROP TRIGGER ${c.name}_${op}${pg ? ` ON ${c.table}` : ''}`);
			if (pg) await sql(`DROP FUNCTION ${c.name}_statement()`);
			await sql(`DELETE FROM list_counts WHERE list = '${c.table}' AND filter LIKE ${c.pattern}`);
		}
	});
}
