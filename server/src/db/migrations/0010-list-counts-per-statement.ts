import type { QueryInterface } from 'sequelize';

import { COUNTED, createRowTrigger, type Counted } from './0009-list-counts';

/**
 * PostgreSQL: the list counters (0009) move once per statement instead of once per row.
 *
 * A row-level trigger updates the same counter row once for every row a statement writes, and
 * inside one transaction PostgreSQL keeps every version of that row: each update walks the ones
 * before it, so a statement writing n rows cost O(n²) (2,000 users inserted at once: 0.23 s;
 * 8,000: 3.6 s; 100,000: minutes). Statement-level triggers see the statement's rows as
 * transition tables and add one sum per counter, skipping counters whose sum is zero (an update
 * that leaves the counted columns alone writes nothing). Counter rows are written in key order,
 * so two statements that move the same counters lock them in the same order.
 *
 * SQLite updates a row in place, so its row-level triggers stay as they are.
 */

/** `SELECT organization_id, filter, ±1 FROM <rows>` for every counter each row is in. */
export function deltas({ filters, shown }: Counted, rows: 'new_rows' | 'old_rows', delta: 1 | -1): string {
	return filters('r')
		.map((filter) => `SELECT r.organization_id, ${filter} AS filter, ${delta} AS delta FROM ${rows} r WHERE ${shown?.('r') ?? 'true'}`)
		.join(' UNION ALL ');
}

export function applyDeltas(counted: Counted, parts: string[]): string {
	return `INSERT INTO list_counts (organization_id, list, filter, n)
		SELECT organization_id, '${counted.table}', filter, SUM(delta) FROM (${parts.join(' UNION ALL ')}) d
		GROUP BY organization_id, filter HAVING SUM(delta) <> 0 ORDER BY organization_id, filter
		ON CONFLICT (organization_id, list, filter) DO UPDATE SET n = list_counts.n + excluded.n;`;
}

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	if (qi.sequelize.getDialect() !== 'postgres') return;
	await qi.sequelize.transaction(async (transaction) => {
		const sql = (text: string) => qi.sequelize.query(text, { transaction });
		for (const counted of COUNTED) {
			const { table } = counted;
			await sql(`DROP TRIGGER ${table}_list_counts ON ${table}`);
			await sql(`DROP FUNCTION ${table}_list_counts()`);
			await sql(`CREATE FUNCTION ${table}_list_counts_statement() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN
					IF TG_OP = 'INSERT' THEN ${applyDeltas(counted, [deltas(counted, 'new_rows', 1)])}
					ELSIF TG_OP = 'DELETE' THEN ${applyDeltas(counted, [deltas(counted, 'old_rows', -1)])}
					ELSE ${applyDeltas(counted, [deltas(counted, 'old_rows', -1), deltas(counted, 'new_rows', 1)])}
					END IF;
					RETURN NULL;
				END $$`);
			// A trigger with transition tables serves one event.
			await sql(`CREATE TRIGGER ${table}_list_counts_insert AFTER INSERT ON ${table}
				REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_list_counts_statement()`);
			await sql(`CREATE TRIGGER ${table}_list_counts_update AFTER UPDATE ON ${table}
				REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_list_counts_statement()`);
			await sql(`CREATE TRIGGER ${table}_list_counts_delete AFTER DELETE ON ${table}
				REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_list_counts_statement()`);
		}
	});
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	if (qi.sequelize.getDialect() !== 'postgres') return;
	await qi.sequelize.transaction(async (transaction) => {
		const sql = (text: string) => qi.sequelize.query(text, { transaction });
		for (const counted of COUNTED) {
			const { table } = counted;
			for (const op of ['insert', 'update', 'delete']) await sql(`DROP TRIGGER ${table}_list_counts_${op} ON ${table}`);
			await sql(`DROP FUNCTION ${table}_list_counts_statement()`);
			await createRowTrigger(sql, counted);
		}
	});
}
