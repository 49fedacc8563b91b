import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { openDatabase, type Database } from '../../server/src/db/database';
import { migrator } from '../../server/src/db/migrate';
import { createTestDatabase, testDialect } from '../helpers/database';

/**
 * Migrations never change once shipped: each carries the SQL and helpers it needs as they were
 * when it shipped, so a change elsewhere in the server cannot rewrite an old migration.
 */

const FOLDER = join(__dirname, '../../server/src/db/migrations');

test('a migration imports nothing from outside its folder but sequelize and umzug types', async () => {
	const files = (await readdir(FOLDER)).filter((f) => f.endsWith('.ts'));
	expect(files.length).toBeGreaterThan(15);
	const outside: string[] = [];
	for (const file of files) {
		const text = await readFile(join(FOLDER, file), 'utf8');
		for (const [, from] of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/g)) {
			if (!/^(sequelize|umzug)$/.test(from) && !/^\.\/[^/]+$/.test(from)) outside.push(`${file}: ${from}`);
		}
		for (const [, from] of text.matchAll(/\b(?:require|import)\(\s*'([^']+)'/g)) outside.push(`${file}: ${from}`);
	}
	expect(outside).toEqual([]);
});

/** The last migration shipped before this test: the schema it leaves is fixed for good. */
const SHIPPED = '0021-webhook-deliveries-pending-by-endpoint';

/** Every object of the schema with its definition as the database keeps it, one per line, sorted. */
async function schemaDump(db: Database): Promise<string> {
	const rows = async (sql: string) => (await db.sequelize.query(sql, { type: 'SELECT' })) as Array<Record<string, unknown>>;
	const lines = (list: Array<Record<string, unknown>>) => list.map((r) => JSON.stringify(Object.values(r)));
	if (db.dialect === 'sqlite') {
		return lines(await rows("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")).join('\n');
	}
	const parts = await Promise.all([
		rows(`SELECT table_name, column_name, ordinal_position, data_type, character_maximum_length, is_nullable, column_default, collation_name
			FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`),
		rows(`SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
			WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`),
		rows("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2"),
		rows(`SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) FROM pg_trigger
			WHERE NOT tgisinternal AND tgrelid::regclass::text NOT LIKE 'pg_%' ORDER BY 1, 2`),
		rows(`SELECT proname, pg_get_functiondef(oid) FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1`),
		rows("SELECT sequencename, data_type, start_value, increment_by FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1"),
	]);
	return parts.map(lines).flat().join('\n');
}

test(`a fresh database migrated to ${SHIPPED} has the schema it always had (${testDialect()})`, async () => {
	const fresh = await createTestDatabase();
	const db = await openDatabase({ databaseUrl: fresh.databaseUrl, poolMax: 1 });
	try {
		await migrator(db).up({ to: SHIPPED });
		const dump = `${await schemaDump(db)}\n`;
		const expected = join(__dirname, 'fixtures', `schema-${SHIPPED.slice(0, 4)}-${db.dialect}.txt`);
		// Written once, from the migrations as they shipped; never rewritten to make this pass.
		if (process.env.WRITE_SCHEMA_FIXTURE === '1') await writeFile(expected, dump);
		expect(dump).toBe(await readFile(expected, 'utf8'));
	} finally {
		await db.close();
		await fresh.remove();
	}
});
