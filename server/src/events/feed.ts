import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { numberedRange, OLD_IDS, organizationTag } from './ids';
import { cursorAndPage, feedHeadOf, feedPage, LAST_PRUNED, ONE_EVENT } from './queries';
import type { EventType } from './types';

/**
 * Reading the feed. The promise (SPEC §11): a client that passes the last id it received as
 * `after` gets every event exactly once, in id order, whatever the writers do.
 *
 * That holds if what a read serves is always a prefix of the final id order: once a reader has
 * seen an id, no smaller id of the organization may ever appear. Ids carry the event's number in
 * its organization, given in commit order (events/queries.ts): on SQLite by the one writer, on
 * PostgreSQL under a lock per organization taken just before COMMIT and released once the commit
 * is visible. A reader sees committed events only, so whatever it sees is already a prefix; no
 * bound, and nothing held back behind another transaction, whichever database it runs in.
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

/**
 * A cursor that names no event of the organization: cursor_expired if retention removed it, else
 * unknown_event. Only the organization's own marks are read: whether another organization's
 * events were removed is none of its business (and would tell their volume).
 */
async function refuseCursor(organizationId: string, after: string): Promise<never> {
	const [low, high] = after < OLD_IDS[1] ? OLD_IDS : numberedRange(organizationTag(organizationId));
	if (after < low || after >= high) throw notOurs();
	const [prune] = await database().read<{ through: string | null }>(LAST_PRUNED, [low, high]);
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
	const sql = after === undefined ? page : cursorAndPage(page);
	const rows = await db.read<EventRow & { cursor_organization: string | null }>(sql, bind);
	if (after !== undefined) {
		const cursor = rows.find((r) => r.cursor_organization !== null);
		if (!cursor) await refuseCursor(organizationId, after);
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
	const [row] = await database().read<{ head: string | null }>(feedHeadOf(types?.length), [organizationId, ...(types ?? [])]);
	return row?.head ?? null;
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
