import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { cursorAndPage, feedHeadOf, feedPage, LAST_PRUNED, OLDEST_UNSERVED, ONE_EVENT } from './queries';
import type { EventType } from './types';

/**
 * Reading the feed. The promise (SPEC §11): a client that passes the last id it received as
 * `after` gets every event exactly once, in id order, whatever the writers do.
 *
 * That holds if what a read serves is always a prefix of the final id order: once a reader has
 * seen an id, no smaller id may ever appear.
 * - PostgreSQL: an id starts with its transaction's id (events/record.ts). A reader serves only
 *   ids below the smallest id of a transaction of THIS database that its snapshot still sees
 *   running, or below the snapshot's xmax when there is none. Every transaction below that bound
 *   has either finished (committed and visible to this statement, or rolled back and gone) or
 *   runs in another database, where it can never write an event here; every transaction of this
 *   database that has not finished, or has not started, sorts after everything served.
 *   The snapshot is the statement's own (pg_current_snapshot()), so the bound and the rows agree.
 *   Which database a running xid belongs to is read from pg_stat_get_activity: a backend never
 *   changes database and an xid belongs to one backend, so "another database" is never wrong even
 *   though that view is read a moment after the snapshot; an xid found nowhere (it ended
 *   meanwhile, or is a prepared transaction) holds the feed back, until the next read. So a
 *   pg_dump or an idle-in-transaction session of another application on the same cluster does
 *   not stop the feed (SPEC §19), while this database's open writers still hold it back until
 *   they end: the price of never skipping, and why writers keep their transactions short.
 * - SQLite: one writer at a time and id order is commit order (events/record.ts); a reader sees
 *   committed transactions only, so whatever it sees is already a prefix. No bound is needed.
 */

/** The id shape the server makes; anything else names no event. */
export const EVENT_ID = /^evt_[0-9a-f]{28}$/;

export interface EventRow {
	id: string;
	type: EventType;
	data: string;
	/** `data.previous_attributes` as JSON text (user.updated), else null. */
	previous_attributes: string | null;
	/** ISO 8601 (read through Database.isoText). */
	created_at: string;
}

export interface FeedQuery {
	organizationId: string;
	/** Only events after this one; omitted: from the oldest kept. */
	after?: string;
	/** Only these types; omitted: every type. */
	types?: EventType[];
	limit: number;
}

const notOurs = () =>
	new RuleError('unknown_event', 'after must be the id of an event of your organization, as the feed returned it.', { field: 'after' });

/** A cursor that names no event of the organization: cursor_expired if retention removed it, else unknown_event. */
async function refuseCursor(after: string): Promise<never> {
	const [prune] = await database().read<{ through: string | null }>(LAST_PRUNED);
	if (prune?.through && after <= prune.through) {
		throw new RuleError(
			'cursor_expired',
			'The event named by after is older than the feed keeps and was removed. Read the feed again without after, from the oldest event kept.',
		);
	}
	throw notOurs();
}

/**
 * One page of the feed, oldest first, and whether more is there already. With a cursor, one
 * query reads both the cursor's own event (to check it is one of the organization's) and the
 * page after it: the feed is polled, and every round trip counts.
 */
export async function readFeed(query: FeedQuery): Promise<{ rows: EventRow[]; hasMore: boolean }> {
	const { organizationId, after, limit } = query;
	if (after !== undefined && !EVENT_ID.test(after)) throw notOurs();
	const bind: unknown[] = [organizationId, after ?? 'evt_', limit + 1, ...(query.types ?? [])];
	const db = database();
	const page = feedPage(db, query.types?.length);
	const sql = after === undefined ? page : cursorAndPage(db, page);
	const rows = await db.read<EventRow & { cursor_organization: string | null }>(sql, bind);
	if (after !== undefined) {
		const cursor = rows.find((r) => r.cursor_organization !== null);
		if (!cursor) await refuseCursor(after);
		if (cursor!.cursor_organization !== organizationId) throw notOurs();
	}
	// UNION ALL promises no order: put the page back in id order.
	const events = rows.filter((r) => r.cursor_organization === null).sort((a, b) => (a.id < b.id ? -1 : 1));
	const hasMore = events.length > limit;
	return { rows: hasMore ? events.slice(0, limit) : events, hasMore };
}

/**
 * The id of the newest event the feed serves now among these types (omitted: every type), or
 * null. Reading on with it as `after` misses nothing: it lies below the same visibility bound
 * as every page (whatever is not served yet sorts after it). One index read per type, from the
 * top: MAX over an `IN` list would walk every event of those types.
 */
export async function feedHead(organizationId: string, types?: readonly EventType[]): Promise<string | null> {
	const [row] = await database().read<{ head: string | null }>(feedHeadOf(database(), types?.length), [organizationId, ...(types ?? [])]);
	return row?.head ?? null;
}

/**
 * When the oldest event that is stored but not served yet was written, or null when the feed
 * serves everything (always, on SQLite): what the feed's lag is measured from (/metrics).
 */
export async function oldestUnserved(): Promise<Date | null> {
	const db = database();
	if (db.dialect !== 'postgres') return null;
	const [row] = await db.read<{ oldest: string | null }>(OLDEST_UNSERVED(db));
	return row?.oldest ? new Date(row.oldest) : null;
}

/** One served event of the organization, or undefined. */
export async function findEvent(organizationId: string, id: string): Promise<EventRow | undefined> {
	if (!EVENT_ID.test(id)) return undefined;
	const [row] = await database().read<EventRow>(ONE_EVENT(database()), [organizationId, id]);
	return row;
}

/**
 * An event as the API shows it, as JSON text (`data.previous_attributes` only where the event has
 * them, user.updated). `data` is stored as the JSON the serializer made
 * when the event was written, so it is spliced in as it is rather than parsed and written again.
 */
export function eventJson(row: EventRow): string {
	const created = row.created_at;
	const previous = !row.previous_attributes ? '' : `,"previous_attributes":${row.previous_attributes}`;
	// The object's own fields follow it: `{"group_id":…,"user_id":…}` without its braces.
	const membership = MEMBERSHIP_EVENTS.has(row.type) ? `,${row.data.slice(1, -1)}` : '';
	return `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)},"created_at":"${created}","data":{"object":${row.data}${membership}${previous}}}`;
}

/**
 * A membership has no record of its own: its events' `object` is `{ group_id, user_id }`, and
 * SPEC §20 has `data` say the same pair, so `data.group_id` and `data.user_id` carry it too.
 */
const MEMBERSHIP_EVENTS = new Set(['group.member_added', 'group.member_removed']);

/** An event as the API shows it. `data` holds the record as JSON text, written with the event. */
export function serializeEvent(row: EventRow) {
	const object = JSON.parse(row.data) as object;
	return {
		id: row.id,
		type: row.type,
		created_at: row.created_at,
		data: {
			object,
			...(MEMBERSHIP_EVENTS.has(row.type) ? object : {}),
			...(!row.previous_attributes ? {} : { previous_attributes: JSON.parse(row.previous_attributes) as object }),
		},
	};
}
