import type { Transaction } from 'sequelize';

import type { Database } from '../db';

/**
 * Events' ids are made by the database, in the statement that inserts them (see the 0006 migration):
 * - PostgreSQL: `evt_` + the transaction id + a sequence value. Ids are handed out in one order
 *   and transactions commit in another; putting the transaction id first lets the feed serve
 *   exactly the ids of finished transactions (events/feed.ts), which form a prefix of id order.
 *   pg_current_xact_id() is the top-level transaction's id, even inside a savepoint.
 * - SQLite: `evt_` + zeros + the next AUTOINCREMENT values. The whole write transaction holds
 *   SQLite's single write lock (BEGIN IMMEDIATE), so no other writer can take an id, let alone
 *   commit, between this insert and this commit: id order is commit order.
 * One statement inserts a list of events (the overdue sweep writes hundreds per transaction);
 * within it, ids ascend in the list's order. The list is one parameter, a JSON array of
 * [organization, type, data (JSON text), created_at (ISO 8601), previous_attributes (JSON text or
 * null)]: Sequelize binds SQLite parameters by name, which costs the driver a scan of all the
 * statement's names per parameter, so thousands of parameters cost more than the insert itself.
 */
export type EventParams = [organizationId: string, type: string, data: string, createdAt: string, previousAttributes: string | null];

/**
 * PostgreSQL: the ids are made once in a MATERIALIZED CTE (nextval is volatile), in the list's
 * order, inserted from it and read back from it by place, so each id is known to belong to its
 * row whatever order RETURNING would give. `extra` (insertEvents) is read on the first row.
 */
const INSERT_POSTGRES = (extra: string) => `WITH new AS MATERIALIZED (
		SELECT e.place, 'evt_' || lpad(to_hex(pg_current_xact_id()::text::bigint), 16, '0') || lpad(to_hex(nextval('events_seq')), 12, '0') AS id,
			e.value ->> 0 AS organization_id, e.value ->> 1 AS type, e.value ->> 2 AS data, (e.value ->> 3)::timestamptz AS created_at, e.value ->> 4 AS previous_attributes
		FROM json_array_elements($1::json) WITH ORDINALITY AS e (value, place)
		ORDER BY e.place
	), inserted AS (
		INSERT INTO events (id, organization_id, type, data, created_at, previous_attributes)
		SELECT id, organization_id, type, data, created_at, previous_attributes FROM new
	)
	SELECT id, CASE WHEN place = 1 THEN ${extra} END AS extra FROM new ORDER BY place`;

/**
 * SQLite: seq is the last AUTOINCREMENT value + the row's place (sqlite_sequence is written back
 * only at the statement's end, so every row reads the same base); the rows' seq and ids come back
 * through RETURNING, `extra` on the first. (The statement starts with WITH: Sequelize runs one
 * that starts with INSERT as a write and drops its rows.)
 */
const INSERT_SQLITE = (db: Database, extra: string) => `WITH next AS (SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) AS seq)
	INSERT INTO events (seq, id, organization_id, type, data, created_at, previous_attributes)
	SELECT next.seq + e.key + 1, 'evt_' || printf('%016x%012x', 0, next.seq + e.key + 1),
		e.value ->> 0, e.value ->> 1, e.value ->> 2, ${db.storedTime('e.value ->> 3')}, e.value ->> 4
	FROM next, json_each($1) AS e
	ORDER BY e.key
	RETURNING seq, id, CASE WHEN seq = (SELECT seq FROM next) + 1 THEN ${extra} END AS extra`;

/**
 * Inserts events; returns their ids, in the list's order, and what `extra` reads in the same
 * statement: a scalar SQL expression built on `organizations`, a subquery of the events'
 * organization ids. Events and the deliveries they start (webhooks/enqueue.ts) then cost one
 * statement when no endpoint wants them.
 */
export async function insertEvents(
	db: Database,
	transaction: Transaction,
	events: readonly EventParams[],
	extra: (organizations: string) => string = () => 'NULL',
): Promise<{ ids: string[]; extra: unknown }> {
	const list = JSON.stringify(events);
	if (db.dialect === 'postgres') {
		const rows = await db.rows<{ id: string; extra: unknown }>(INSERT_POSTGRES(extra('SELECT organization_id FROM new')), [list], transaction);
		return { ids: rows.map((r) => r.id), extra: rows[0]?.extra };
	}
	const rows = await db.rows<{ seq: number; id: string; extra: unknown }>(INSERT_SQLITE(db, extra('SELECT value ->> 0 FROM json_each($1)')), [list], transaction);
	rows.sort((a, b) => a.seq - b.seq);
	return { ids: rows.map((r) => r.id), extra: rows[0]?.extra };
}

/** Up to `$2` events written before `$1` (ISO 8601), oldest first. */
export const EXPIRED_EVENTS = (db: Database) => `SELECT id FROM events WHERE created_at < ${db.storedTime('$1')} ORDER BY created_at LIMIT $2`;

export const deleteEvents = (ids: readonly string[]) => `DELETE FROM events WHERE id IN (${ids.map((_, i) => `$${i + 1}`).join(', ')})`;

/** `$1`: the highest id removed, `$2`: when (ISO 8601). */
export const RECORD_PRUNE = (db: Database) =>
	`INSERT INTO event_prunes (through, pruned_at) VALUES ($1, ${db.storedTime('$2')}) ON CONFLICT (through) DO NOTHING`;

/** PostgreSQL: every id below this is served (events/feed.ts says why). xip holds 64-bit xids (epoch << 32 | xid); backend_xid is the 32-bit xid. */
const POSTGRES_BOUND = `(SELECT 'evt_' || lpad(to_hex(COALESCE(MIN(running::text::bigint), pg_snapshot_xmax(pg_current_snapshot())::text::bigint)), 16, '0')
	FROM pg_snapshot_xip(pg_current_snapshot()) AS running
	WHERE NOT EXISTS (SELECT 1 FROM pg_stat_get_activity(NULL) AS backend
		WHERE backend.backend_xid::text::bigint = running::text::bigint % 4294967296
			AND backend.datid <> (SELECT oid FROM pg_database WHERE datname = current_database())))`;

const VISIBLE: Record<'postgres' | 'sqlite', string> = {
	postgres: `AND id < ${POSTGRES_BOUND}`,
	sqlite: '',
};

/** What a read of the feed may serve (events/feed.ts explains the bound). */
const visible = (db: Database) => VISIBLE[db.dialect];

/** The columns of an event as the API shows it. */
export const EVENT_COLUMNS = (db: Database) => `id, type, data, ${db.isoText('created_at')} AS created_at, previous_attributes`;

export const LAST_PRUNED = 'SELECT MAX(through) AS through FROM event_prunes';

/** A page of the feed: $1 organization, $2 after (exclusive), $3 how many, then `types` types from $4 (undefined: every type). */
export function feedPage(db: Database, types: number | undefined): string {
	const typeFilter = types !== undefined ? `AND type IN (${Array.from({ length: types }, (_, i) => `$${i + 4}`).join(', ')})` : '';
	return `SELECT ${EVENT_COLUMNS(db)}, NULL AS cursor_organization FROM events
		WHERE organization_id = $1 AND id > $2 ${visible(db)} ${typeFilter}
		ORDER BY id LIMIT $3`;
}

/** The cursor's own event ($2, whoever's it is) and then the page after it, in one round trip. */
export const cursorAndPage = (db: Database, page: string) =>
	`SELECT id, NULL AS type, NULL AS data, NULL AS created_at, NULL AS previous_attributes, organization_id AS cursor_organization FROM events WHERE id = $2 ${visible(db)}
				UNION ALL SELECT * FROM (${page}) AS page`;

/** The newest served event id of the organization ($1), among `types` types bound from $2 (undefined: every type), one index read per type. */
export function feedHeadOf(db: Database, types: number | undefined): string {
	const newest = (typeFilter: string) => `SELECT MAX(id) AS head FROM events WHERE organization_id = $1 ${typeFilter} ${visible(db)}`;
	return types !== undefined
		? `SELECT MAX(head) AS head FROM (${Array.from({ length: types }, (_, i) => newest(`AND type = $${i + 2}`)).join(' UNION ALL ')}) AS heads`
		: newest('');
}

/** PostgreSQL only: when the oldest stored but not yet served event was written. */
export const OLDEST_UNSERVED = (db: Database) => `SELECT ${db.isoText('MIN(created_at)')} AS oldest FROM events WHERE id >= ${POSTGRES_BOUND}`;

/** One served event: $1 organization, $2 id. */
export const ONE_EVENT = (db: Database) => `SELECT ${EVENT_COLUMNS(db)} FROM events WHERE organization_id = $1 AND id = $2 ${visible(db)}`;
