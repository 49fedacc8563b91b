import type { QueryInterface } from 'sequelize';

const TABLES = ['organizations', 'users', 'courses', 'enrollments', 'certificates', 'api_keys', 'audit_events'];

/**
 * Lists are ordered by (created_at, id), and ids mix upper and lower case. SQLite compares
 * text byte by byte; PostgreSQL compares with the database's collation, which on most servers
 * is a language locale (en_US: `usr_a` < `usr_B`), so records created in the same millisecond
 * would come back in a different order than on SQLite, and in a different order from one
 * PostgreSQL server to the next. The "C" collation is byte order everywhere. Nothing to do on
 * SQLite. (Only `id` takes part in an ORDER BY; references compare by equality, which every
 * deterministic collation agrees on.)
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	if (qi.sequelize.getDialect() !== 'postgres') return;
	for (const table of TABLES) {
		await qi.sequelize.query(`ALTER TABLE "${table}" ALTER COLUMN "id" TYPE VARCHAR(40) COLLATE "C"`);
	}
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	if (qi.sequelize.getDialect() !== 'postgres') return;
	for (const table of TABLES) {
		await qi.sequelize.query(`ALTER TABLE "${table}" ALTER COLUMN "id" TYPE VARCHAR(40) COLLATE "default"`);
	}
}
