import type { QueryInterface } from 'sequelize';

/**
 * The search index (SPEC §13, search/words.ts): one row per (record, lower-cased text a search
 * may start with). The primary key is the index a search reads as a range; on PostgreSQL the
 * word is compared in "C" collation so that range order is code point order, as in SQLite.
 * Existing users and courses are indexed here; new ones by the model hooks.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	const sql = (text: string) => qi.sequelize.query(text);
	const pg = qi.sequelize.getDialect() === 'postgres';
	await sql(`CREATE TABLE search_words (
		organization_id VARCHAR(40) NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
		kind VARCHAR(10) NOT NULL,
		word VARCHAR(300)${pg ? ' COLLATE "C"' : ''} NOT NULL,
		record_id VARCHAR(40) NOT NULL,
		PRIMARY KEY (organization_id, kind, word, record_id)
	)`);
	await backfill(qi, 'user', 'SELECT id, organization_id, name, email_lower FROM users', (r) => [normalize(String(r.email_lower)), ...wordSuffixes(String(r.name))]);
	await backfill(qi, 'course', 'SELECT id, organization_id, title FROM courses', (r) => wordSuffixes(String(r.title)));
}

/** search/words.ts's text rules as they were when this migration shipped (a migration never changes). */
function normalize(text: string): string {
	return text.toLowerCase().replace(/\s+/gu, ' ');
}

function wordSuffixes(text: string): string[] {
	const words = normalize(text).trim().split(' ').filter((w) => w !== '');
	return words.map((_, i) => words.slice(i).join(' '));
}

async function backfill(qi: QueryInterface, kind: string, select: string, texts: (row: Record<string, unknown>) => string[]): Promise<void> {
	const records = (await qi.sequelize.query(select, { type: 'SELECT' })) as Array<Record<string, unknown>>;
	const rows = records.flatMap((r) =>
		[...new Set(texts(r).filter((t) => t !== ''))].map((word) => ({ organization_id: r.organization_id, kind, word, record_id: r.id })),
	);
	for (let i = 0; i < rows.length; i += 5_000) await qi.bulkInsert('search_words', rows.slice(i, i + 5_000));
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.dropTable('search_words');
}
