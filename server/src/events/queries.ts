import type { Transaction } from 'sequelize';

import type { Database } from '../db';

/**
 * Events' ids are made by the database (events/ids.ts gives their shape: the organization's tag
 * and the event's number in its organization). The feed serves an organization's events in id
 * order and must never serve an id before a smaller one (events/feed.ts): numbers are given in
 * commit order. A transaction's events are written as it commits (events/record.ts), each
 * numbered at once: the organization's last number + the event's place among its own.
 * - SQLite: the whole write transaction holds SQLite's single write lock (BEGIN IMMEDIATE).
 * - PostgreSQL: first the organizations' numbering locks, advisory and held to the end of the
 *   transaction, taken in one order (LOCK_NUMBERING); then, in a statement of its own, whose
 *   fresh snapshot sees what the previous holder of a lock committed, the insert. A lock is
 *   released only after its holder's commit is visible, so the next holder's numbers follow a
 *   committed predecessor's: a reader never sees a number before a smaller one. Taken in the
 *   transaction's last statements, the lock never waits while the transaction holds it and waits
 *   for anything else, so it adds no deadlock. (Releases before issue 40 took the same lock and
 *   read the same last numbers at commit: during a rolling restart both number alike.)
 * One statement inserts a list of events (the overdue sweep writes hundreds per transaction);
 * within it, numbers ascend in the list's order. The list is one parameter, a JSON array of
 * [organization, type, data (JSON text), created_at (ISO 8601), previous_attributes (JSON text or
 * null), the organization's tag]: Sequelize binds SQLite parameters by name, which costs the
 * driver a scan of all the statement's names per parameter, so thousands of parameters cost more
 * than the insert itself.
 */
export type EventParams = [organizationId: string, type: string, data: string, createdAt: string, previousAttributes: string | null, tag: string];

/**
 * The last number of each organization of `touched` (organization_id, low = `evt_<tag>`): its
 * newest event, or the newest that retention removed (event_prunes keeps a mark per
 * organization), so numbers never restart. `number(text)` reads the 16 digits ending an id;
 * `greatest` is the dialect's two-argument maximum.
 */
const lastNumber = (greatest: string, number: (id: string) => string) => `${greatest}(
		COALESCE((SELECT ${number('MAX(e.id)')} FROM events AS e WHERE e.organization_id = touched.organization_id AND e.id >= touched.low AND e.id < touched.low || 'g'), 0),
		COALESCE((SELECT ${number('MAX(p.through)')} FROM event_prunes AS p WHERE p.through >= touched.low AND p.through < touched.low || 'g'), 0))`;

/** PostgreSQL: the numbering locks of the organizations of $1 (a JSON array of ids), in one order. */
const LOCK_NUMBERING = `SELECT pg_advisory_xact_lock(hashtextextended('lms.events ' || organization_id, 0))
	FROM (SELECT DISTINCT json_array_elements_text($1::json) AS organization_id ORDER BY 1) AS touched`;

/**
 * PostgreSQL, after LOCK_NUMBERING: the events numbered, inserted and their ids read back by
 * place. `extra` (insertEvents) is read on the first row.
 */
const INSERT_POSTGRES = (extra: string) => `WITH list AS (
		SELECT e.place, e.value ->> 0 AS organization_id, e.value ->> 1 AS type, e.value ->> 2 AS data, (e.value ->> 3)::timestamptz AS created_at,
			e.value ->> 4 AS previous_attributes, 'evt_' || (e.value ->> 5) AS low, row_number() OVER (PARTITION BY e.value ->> 0 ORDER BY e.place) AS n
		FROM json_array_elements($1::json) WITH ORDINALITY AS e (value, place)
	), last AS (
		SELECT touched.organization_id, ${lastNumber('GREATEST', (id) => `right(${id}, 16)::bigint`)} AS n
		FROM (SELECT DISTINCT organization_id, low FROM list) AS touched
	), new AS (
		SELECT list.place, list.low || lpad((last.n + list.n)::text, 16, '0') AS id, list.organization_id, list.type, list.data, list.created_at, list.previous_attributes
		FROM list JOIN last USING (organization_id)
	), inserted AS (
		INSERT INTO events (id, organization_id, type, data, created_at, previous_attributes)
		SELECT id, organization_id, type, data, created_at, previous_attributes FROM new
	)
	SELECT id, CASE WHEN place = 1 THEN ${extra} END AS extra FROM new ORDER BY place`;

/**
 * SQLite: seq (the row's storage order) is the last AUTOINCREMENT value + the row's place
 * (sqlite_sequence is written back only at the statement's end, so every row reads the same
 * base); the rows' seq and ids come back through RETURNING, `extra` on the first. (The statement
 * starts with WITH: Sequelize runs one that starts with INSERT as a write and drops its rows.)
 */
const INSERT_SQLITE = (db: Database, extra: string) => `WITH next AS (SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) AS seq),
	list AS (SELECT e.key, e.value, 'evt_' || (e.value ->> 5) AS low, row_number() OVER (PARTITION BY e.value ->> 0 ORDER BY e.key) AS place FROM json_each($1) AS e),
	last AS (SELECT touched.low, ${lastNumber('max', (id) => `CAST(substr(${id}, 17) AS INTEGER)`)} AS n
		FROM (SELECT DISTINCT low, value ->> 0 AS organization_id FROM list) AS touched)
	INSERT INTO events (seq, id, organization_id, type, data, created_at, previous_attributes)
	SELECT next.seq + list.key + 1, list.low || printf('%016d', last.n + list.place),
		list.value ->> 0, list.value ->> 1, list.value ->> 2, ${db.storedTime('list.value ->> 3')}, list.value ->> 4
	FROM next, list JOIN last ON last.low = list.low
	ORDER BY list.key
	RETURNING seq, id, CASE WHEN seq = (SELECT seq FROM next) + 1 THEN ${extra} END AS extra`;

/**
 * Inserts events, as the last statements of their transaction (events/record.ts); returns their
 * ids, in the list's order, and what `extra` reads in the same statement: a scalar SQL expression
 * built on `organizations`, a subquery of the events' organization ids. Events and the deliveries
 * they start (webhooks/enqueue.ts) then cost one statement when no endpoint wants them (two on
 * PostgreSQL: the lock first).
 */
export async function insertEvents(
	db: Database,
	transaction: Transaction,
	events: readonly EventParams[],
	extra: (organizations: string) => string = () => 'NULL',
): Promise<{ ids: string[]; extra: unknown }> {
	const list = JSON.stringify(events);
	if (db.dialect === 'postgres') {
		await db.run(LOCK_NUMBERING, [JSON.stringify(events.map(([organizationId]) => organizationId))], transaction);
		const rows = await db.rows<{ id: string; extra: unknown }>(INSERT_POSTGRES(extra('SELECT organization_id FROM list')), [list], transaction);
		return { ids: rows.map((r) => r.id), extra: rows[0]?.extra };
	}
	const rows = await db.rows<{ seq: number; id: string; extra: unknown }>(INSERT_SQLITE(db, extra('SELECT value ->> 0 FROM json_each($1)')), [list], transaction);
	rows.sort((a, b) => a.seq - b.seq);
	return { ids: rows.map((r) => r.id), extra: rows[0]?.extra };
}

/** Up to `$2` events written before `$1` (ISO 8601), oldest first. */
export const EXPIRED_EVENTS = (db: Database) => `SELECT id FROM events WHERE created_at < ${db.storedTime('$1')} ORDER BY created_at LIMIT $2`;

export const deleteEvents = (ids: readonly string[]) => `DELETE FROM events WHERE id IN (${ids.map((_, i) => `$${i + 1}`).join(', ')})`;

/** `$1`: the highest id removed (of one organization, or of the ids made before numbering), `$2`: when (ISO 8601). */
export const RECORD_PRUNE = (db: Database) =>
	`INSERT INTO event_prunes (through, pruned_at) VALUES ($1, ${db.storedTime('$2')}) ON CONFLICT (through) DO NOTHING`;

/** The columns of an event as the API shows it. */
export const EVENT_COLUMNS = (db: Database) => `id, type, data, ${db.isoText('created_at')} AS created_at, previous_attributes`;

/** The highest id retention removed in [$1, $2): one organization's numbered ids, or the ids made before numbering. */
export const LAST_PRUNED = 'SELECT MAX(through) AS through FROM event_prunes WHERE through >= $1 AND through < $2';

/** A page of the feed: $1 organization, $2 after (exclusive), $3 how many, then `types` types from $4 (undefined: every type). */
export function feedPage(db: Database, types: number | undefined): string {
	const typeFilter = types !== undefined ? `AND type IN (${Array.from({ length: types }, (_, i) => `$${i + 4}`).join(', ')})` : '';
	return `SELECT ${EVENT_COLUMNS(db)}, NULL AS cursor_organization FROM events
		WHERE organization_id = $1 AND id > $2 ${typeFilter}
		ORDER BY id LIMIT $3`;
}

/** The cursor's own event ($2, whoever's it is) and then the page after it, in one round trip. */
export const cursorAndPage = (page: string) =>
	`SELECT id, NULL AS type, NULL AS data, NULL AS created_at, NULL AS previous_attributes, organization_id AS cursor_organization FROM events WHERE id = $2
				UNION ALL SELECT * FROM (${page}) AS page`;

/** The newest served event id of the organization ($1), among `types` types bound from $2 (undefined: every type), one index read per type. */
export function feedHeadOf(types: number | undefined): string {
	const newest = (typeFilter: string) => `SELECT MAX(id) AS head FROM events WHERE organization_id = $1 ${typeFilter}`;
	return types !== undefined
		? `SELECT MAX(head) AS head FROM (${Array.from({ length: types }, (_, i) => newest(`AND type = $${i + 2}`)).join(' UNION ALL ')}) AS heads`
		: newest('');
}

/** One event: $1 organization, $2 id. */
export const ONE_EVENT = (db: Database) => `SELECT ${EVENT_COLUMNS(db)} FROM events WHERE organization_id = $1 AND id = $2`;
