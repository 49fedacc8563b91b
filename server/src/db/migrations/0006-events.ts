import type { QueryInterface } from 'sequelize';

/**
 * The event feed (SPEC §11) and the per-course certificate validity (SPEC §10).
 *
 * An event id is `evt_` + 16 hex digits + 12 hex digits, fixed width, so that text order is feed
 * order. What the two numbers are differs per dialect, and is what makes the feed safe to read
 * by cursor (see events/record.ts and events/feed.ts):
 * - PostgreSQL: the writing transaction's id (`pg_current_xact_id()`, 64-bit, never wraps) and a
 *   value of the `events_seq` sequence. The feed serves only ids whose transaction is below every
 *   transaction of this database still running: no smaller id can appear after a reader saw a
 *   larger one.
 * - SQLite: 0 and the AUTOINCREMENT rowid. One writer at a time (every write transaction is
 *   BEGIN IMMEDIATE) makes id order commit order; AUTOINCREMENT never reuses a value.
 *
 * `data` is the JSON the API showed right after the change, stored as text.
 * `event_prunes` remembers the highest id removed by retention, so that a cursor naming a
 * removed event can be told apart (410 cursor_expired) from one that never was (400).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	const sql = (text: string) => qi.sequelize.query(text);
	// Days a certificate stays valid after it is issued; null = never expires. Not shown by the API.
	await sql('ALTER TABLE courses ADD COLUMN certificate_validity_days INTEGER NULL');

	if (qi.sequelize.getDialect() === 'postgres') {
		await sql('CREATE SEQUENCE events_seq');
		await sql(`CREATE TABLE events (
			id VARCHAR(40) COLLATE "C" PRIMARY KEY,
			organization_id VARCHAR(40) NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
			type VARCHAR(40) NOT NULL,
			data TEXT NOT NULL,
			created_at TIMESTAMP WITH TIME ZONE NOT NULL
		)`);
		await sql(`CREATE TABLE event_prunes (
			through VARCHAR(40) COLLATE "C" PRIMARY KEY,
			pruned_at TIMESTAMP WITH TIME ZONE NOT NULL
		)`);
	} else {
		await sql(`CREATE TABLE events (
			seq INTEGER PRIMARY KEY AUTOINCREMENT,
			id VARCHAR(40) NOT NULL UNIQUE,
			organization_id VARCHAR(40) NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
			type VARCHAR(40) NOT NULL,
			data TEXT NOT NULL,
			created_at DATETIME NOT NULL
		)`);
		await sql(`CREATE TABLE event_prunes (
			through VARCHAR(40) PRIMARY KEY,
			pruned_at DATETIME NOT NULL
		)`);
	}
	// The feed: one organization's events in id order, all types or one type.
	await sql('CREATE INDEX events_org_order ON events (organization_id, id)');
	await sql('CREATE INDEX events_org_type_order ON events (organization_id, type, id)');
	// Retention removes by age.
	await sql('CREATE INDEX events_created ON events (created_at)');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.dropTable('event_prunes');
	await qi.dropTable('events');
	if (qi.sequelize.getDialect() === 'postgres') await qi.sequelize.query('DROP SEQUENCE events_seq');
	await qi.removeColumn('courses', 'certificate_validity_days');
}
