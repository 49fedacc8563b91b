import type { Database } from '../db';
import type { Read, Table } from '../db/table';
import { EVENT_COLUMNS } from '../events/queries';
import type { WebhookEndpoint } from './model';

/** An endpoint as the API reads one: never its secret. */
export type EndpointRow = Read<Pick<WebhookEndpoint, 'id' | 'url' | 'events' | 'description' | 'status' | 'createdAt'>>;

export const ENDPOINTS: Table<EndpointRow> = {
	name: 'webhook_endpoints',
	columns: { id: 'id', url: 'url', events: 'events', description: 'description', status: 'status', createdAt: 'created_at' },
	dates: ['createdAt'],
	// A deleted endpoint is kept for its delivery log (until retention), never shown.
	always: "status <> 'deleted'",
};

/**
 * SQLite: `+status`, a status that no index may be searched by, for a statement that names its
 * rows by id. Without it SQLite's planner walks the index of (status, next_attempt_at), every
 * pending row, and tests each against the ids: a claim or an outcome then cost as much as the
 * whole backlog (30,000 rows) instead of its own rows (issue 40).
 */
const byIdStatus = (db: Database, table = '') => `${db.dialect === 'sqlite' ? '+' : ''}${table}status`;

/** $1: now (ISO 8601). `status` is the column as the statement names it (byIdStatus). */
const dueRows = (db: Database, status = 'status') => {
	const now = db.storedTime('$1');
	return `${status} = 'pending' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})`;
};

/**
 * The ids to claim, round-robin: each endpoint's oldest due rows, cut to what the endpoint may
 * still take ($3: {endpoint id: slots left}, absent = caps.endpoint), then each organization's
 * survivors ranked by that rank and cut likewise ($4, absent = caps.organization), then rank by
 * rank across organizations. $2 is how many slots the pool has free.
 *
 * Each endpoint's rows are read as a short range of the partial index of pending rows
 * (migration 0021), never the whole backlog: a claim costs the same with 30 due rows or 30,000
 * (ranking them all took about 100 ms a claim at 30,000). Every endpoint is visited, whatever
 * its status: a disabled or deleted endpoint's rows are claimed to be marked failed.
 * PostgreSQL reads them through LATERAL, locking the rows it reads and skipping rows another
 * instance's claim holds at that moment, so two instances claiming at once take different
 * rows instead of the second waiting for the first's and finding them leased. Its endpoint ids
 * are compared in the deliveries' collation (endpoints' ids are "C", migration 0008): in "C" the
 * index could not be used. SQLite has no LATERAL: a correlated IN per endpoint, whose LIMIT
 * cannot name the endpoint, so the cap is cut by rank after it.
 */
function candidates(db: Database, caps: { endpoint: number; organization: number }): string {
	const left = (map: string, column: string, cap: number) =>
		db.dialect === 'postgres'
			? `COALESCE((${map}::jsonb ->> ${column})::int, ${cap})`
			: `COALESCE(json_extract(${map}, '$."' || ${column} || '"'), ${cap})`;
	const oldest = (columns: string, endpoint: string, limit: string) =>
		`SELECT ${columns} FROM webhook_deliveries
			WHERE endpoint_id = ${endpoint} AND ${dueRows(db)} ORDER BY next_attempt_at, id LIMIT ${limit}`;
	const due =
		db.dialect === 'postgres'
			? `webhook_endpoints AS e CROSS JOIN LATERAL (${oldest('id, organization_id, endpoint_id, next_attempt_at', '(e.id COLLATE "default")', left('$3', 'e.id', caps.endpoint))} FOR UPDATE SKIP LOCKED) AS d`
			: `webhook_endpoints AS e JOIN webhook_deliveries AS d ON d.id IN (${oldest('id', 'e.id', String(caps.endpoint))})`;
	return `SELECT id FROM (
			SELECT id, next_attempt_at, endpoint_rank, organization_id,
				ROW_NUMBER() OVER (PARTITION BY organization_id ORDER BY endpoint_rank, next_attempt_at, id) AS organization_rank
			FROM (
				SELECT d.id, d.organization_id, d.endpoint_id, d.next_attempt_at,
					ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) AS endpoint_rank
				FROM ${due}
			) AS by_endpoint
			WHERE endpoint_rank <= ${left('$3', 'endpoint_id', caps.endpoint)}
		) AS by_organization
		WHERE organization_rank <= ${left('$4', 'organization_id', caps.organization)}
		ORDER BY organization_rank, next_attempt_at, id
		LIMIT $2`;
}

/**
 * Claiming stamps a lease (an expiry $5 and a token of this claim $6) on the chosen due rows and
 * counts the attempt, so an attempt cut short by a crash still counts; one statement that returns
 * the claimed rows. PostgreSQL: the due conditions are repeated on the updated rows, so a row
 * another instance leased between our read and our lock is left to it (READ COMMITTED rechecks
 * them on the row as that claim left it). SQLite has one writer: the choice and the UPDATE run in
 * one IMMEDIATE transaction, nobody can write between them. (Sequelize runs a statement that
 * starts with INSERT as a write whose rows it drops; an UPDATE asked for rows is read.)
 */
export const claim = (db: Database, caps: { endpoint: number; organization: number }) => `UPDATE webhook_deliveries
	SET lease_until = ${db.storedTime('$5')}, lease_token = $6, attempts = attempts + 1, last_attempt_at = ${db.storedTime('$1')}, updated_at = ${db.storedTime('$1')}
	WHERE id IN (${candidates(db, caps)}) AND ${dueRows(db, byIdStatus(db))}
	RETURNING id, organization_id, endpoint_id, event_id, event_type, attempts, ${db.isoText('created_at')} AS created_at`;

/** The elements of a JSON array of strings bound as `$n`, as a subquery's rows. */
const jsonList = (db: Database, placeholder: string) =>
	db.dialect === 'postgres' ? `SELECT json_array_elements_text(${placeholder}::json)` : `SELECT value FROM json_each(${placeholder})`;

/** The fields of one outcome in $1 (a JSON array of objects), as SQL expressions of `o.value`. */
function outcomeFields(db: Database) {
	const postgres = db.dialect === 'postgres';
	const field = (name: string) => (postgres ? `o.value ->> '${name}'` : `o.value ->> '$.${name}'`);
	const time = (name: string) => (postgres ? `(${field(name)})::timestamptz` : db.storedTime(field(name)));
	return {
		field,
		time,
		from: postgres ? 'json_array_elements($1::json) AS o (value)' : 'json_each($1) AS o',
		noted: `last_status_code = ${postgres ? `(${field('last_status_code')})::int` : field('last_status_code')}, last_error = ${field('last_error')},
			last_request = ${field('last_request')}, last_response_body = ${field('last_response_body')},
			lease_until = NULL, lease_token = NULL, updated_at = ${db.storedTime('$2')}`,
		held: `webhook_deliveries.id = ${field('id')} AND webhook_deliveries.lease_token = ${field('token')}`,
	};
}

/**
 * The outcomes of sends, many at once ($1: a JSON array of objects with id, token, status,
 * next_attempt_at, delivered_at, last_status_code, last_error, last_request, last_response_body;
 * $2: now), recorded on the rows their claim still holds and that are still pending; returns the
 * ids recorded. A row a receipt (webhooks/receipts) marked delivered meanwhile is left to
 * noteOutcomes.
 */
export function recordOutcomes(db: Database): string {
	const o = outcomeFields(db);
	return `UPDATE webhook_deliveries SET status = ${o.field('status')},
		next_attempt_at = COALESCE(${o.time('next_attempt_at')}, next_attempt_at), delivered_at = COALESCE(${o.time('delivered_at')}, delivered_at), ${o.noted}
		FROM ${o.from}
		WHERE ${o.held} AND ${byIdStatus(db, 'webhook_deliveries.')} = 'pending'
		RETURNING webhook_deliveries.id`;
}

/**
 * The outcomes (same $1, $2) of attempts whose row a receipt marked delivered while they were
 * out: noted and the lease released, the receipt's status kept (a failure neither fails nor
 * retries a received event). Run after recordOutcomes, whose rows hold no lease token any more.
 */
export function noteOutcomes(db: Database): string {
	const o = outcomeFields(db);
	return `UPDATE webhook_deliveries SET ${o.noted} FROM ${o.from} WHERE ${o.held}`;
}

/** Whether anything is due at $1: the worker's cheap read before it takes a write lock. */
export const due = (db: Database) => `SELECT 1 AS due FROM webhook_deliveries WHERE ${dueRows(db)} LIMIT 1`;

/**
 * The endpoints of a claim by id ($1: a JSON array of ids), whatever their status, with what the
 * worker needs to send (URL, subscriptions, sealed secrets, run of failures) and their owner key's
 * status, expiry and scopes as they are now: one read for the whole claim, no model instances.
 */
export const CLAIM_ENDPOINTS = (db: Database) => `SELECT e.id, e.url, e.events, e.status, e.secret, e.previous_secret,
		${db.isoText('e.previous_secret_until')} AS previous_secret_until, ${db.isoText('e.failing_since')} AS failing_since, e.api_key_id,
		k.status AS key_status, k.scopes AS key_scopes, ${db.isoText('k.expires_at')} AS key_expires_at
	FROM webhook_endpoints e LEFT JOIN api_keys k ON k.id = e.api_key_id
	WHERE e.id IN (${jsonList(db, '$1')})`;

/** Events by id ($1: a JSON array of ids), as the feed shows them (the worker's deliveries committed with them). */
export const EVENTS_BY_ID = (db: Database) => `SELECT ${EVENT_COLUMNS(db)} FROM events WHERE id IN (${jsonList(db, '$1')})`;

/**
 * The enabled endpoints of the organizations `organizations` (a subquery) lists, with their owner
 * key's scopes and status, as one JSON array (webhooks/enqueue.ts): read by the statement that
 * inserts the events (events/queries.ts insertEvents).
 */
export function subscribersOf(db: Database, organizations: string): string {
	const fields = `'id', e.id, 'organization_id', e.organization_id, 'events', e.events, 'api_key_id', e.api_key_id, 'scopes', k.scopes, 'key_status', k.status`;
	const list = db.dialect === 'postgres' ? `COALESCE(json_agg(json_build_object(${fields})), '[]'::json)::text` : `json_group_array(json_object(${fields}))`;
	return `(SELECT ${list} FROM webhook_endpoints e LEFT JOIN api_keys k ON k.id = e.api_key_id
		WHERE e.organization_id IN (${organizations}) AND e.status = 'enabled')`;
}

/**
 * Deliveries, many at once ($1: a JSON array of [id, organization, endpoint, event, type, due
 * (ISO 8601)]; $2: now), pending and never attempted. One parameter for them all, as for events.
 */
export function insertDeliveries(db: Database): string {
	const postgres = db.dialect === 'postgres';
	const at = (i: number) => (postgres ? `(d.value ->> ${i})::timestamptz` : db.storedTime(`d.value ->> ${i}`));
	const now = postgres ? '$2::timestamptz' : db.storedTime('$2');
	return `INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
		SELECT d.value ->> 0, d.value ->> 1, d.value ->> 2, d.value ->> 3, d.value ->> 4, 'pending', 0, ${at(5)}, ${now}, ${now}
		FROM ${postgres ? 'json_array_elements($1::json)' : 'json_each($1)'} AS d${postgres ? ' (value)' : ''}`;
}

/**
 * Attempts, many at once ($1: a JSON array of [delivery id, attempt, started at (ISO 8601),
 * duration ms, status code, error, request headers, response body, response size]), in the
 * order given (their ids order a delivery's attempts).
 */
export function insertAttempts(db: Database): string {
	const postgres = db.dialect === 'postgres';
	const int = (i: number) => (postgres ? `(a.value ->> ${i})::int` : `a.value ->> ${i}`);
	const at = postgres ? `(a.value ->> 2)::timestamptz` : db.storedTime('a.value ->> 2');
	return `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, request_headers, response_body, response_size)
		SELECT a.value ->> 0, ${int(1)}, ${at}, ${int(3)}, ${int(4)}, a.value ->> 5, a.value ->> 6, a.value ->> 7, ${int(8)}
		FROM ${postgres ? 'json_array_elements($1::json) WITH ORDINALITY AS a (value, n) ORDER BY a.n' : 'json_each($1) AS a ORDER BY a.key'}`;
}
