import type { Transaction } from 'sequelize';

import type { Database } from '../db';

/**
 * The event's id is made by the database, in the statement that inserts it (see the 0006 migration):
 * - PostgreSQL: `evt_` + the transaction id + a sequence value. Ids are handed out in one order
 *   and transactions commit in another; putting the transaction id first lets the feed serve
 *   exactly the ids of finished transactions (events/feed.ts), which form a prefix of id order.
 *   pg_current_xact_id() is the top-level transaction's id, even inside a savepoint.
 * - SQLite: `evt_` + zeros + the next AUTOINCREMENT value. The whole write transaction holds
 *   SQLite's single write lock (BEGIN IMMEDIATE), so no other writer can take an id, let alone
 *   commit, between this insert and this commit: id order is commit order.
 * Parameters: organization, type, data (JSON), created_at (ISO 8601), previous_attributes (JSON or null).
 */
const INSERT = {
	postgres: (db: Database) => `INSERT INTO events (id, organization_id, type, data, created_at, previous_attributes)
		VALUES ('evt_' || lpad(to_hex(pg_current_xact_id()::text::bigint), 16, '0') || lpad(to_hex(nextval('events_seq')), 12, '0'),
			$1, $2, $3, ${db.storedTime('$4')}, $5) RETURNING id`,
	sqlite: (db: Database) => `INSERT INTO events (seq, id, organization_id, type, data, created_at, previous_attributes)
		SELECT next.seq, 'evt_' || printf('%016x%012x', 0, next.seq), $1, $2, $3, ${db.storedTime('$4')}, $5
		FROM (SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) + 1 AS seq) AS next`,
};

/** Inserts an event; returns its id. */
export async function insertEvent(db: Database, transaction: Transaction, params: [string, string, string, string, string | null]): Promise<string> {
	if (db.dialect === 'postgres') {
		const [{ id }] = await db.rows<{ id: string }>(INSERT.postgres(db), params, transaction);
		return id;
	}
	// Sequelize runs an INSERT on SQLite without reading rows back, so the id is read apart.
	await db.run(INSERT.sqlite(db), params, transaction);
	const [{ id }] = await db.rows<{ id: string }>('SELECT id FROM events WHERE seq = last_insert_rowid()', [], transaction);
	return id;
}

/** Up to `$2` events written before `$1` (ISO 8601), oldest first. */
export const EXPIRED_EVENTS = (db: Database) => `SELECT id FROM events WHERE created_at < ${db.storedTime('$1')} ORDER BY created_at LIMIT $2`;

export const deleteEvents = (ids: readonly string[]) => `DELETE FROM events WHERE id IN (${ids.map((_, i) => `$${i + 1}`).join(', ')})`;

/** `$1`: the highest id removed, `$2`: when (ISO 8601). */
export const RECORD_PRUNE = (db: Database) =>
	`INSERT INTO event_prunes (through, pruned_at) VALUES ($1, ${db.storedTime('$2')}) ON CONFLICT (through) DO NOTHING`;
