import { QueryTypes, type Sequelize } from 'sequelize';

import { problems } from '../common/problem';
import { toDate } from '../db/hot-path';
import { Event } from './model';
import type { EventType } from './types';

/**
 * Reading the feed. The promise (SPEC §11): a client that passes the last id it received as
 * `after` gets every event exactly once, in id order, whatever the writers do.
 *
 * That holds if what a read serves is always a prefix of the final id order: once a reader has
 * seen an id, no smaller id may ever appear.
 * - PostgreSQL: an id starts with its transaction's id (events/record.ts). A reader serves only
 *   ids below `evt_<snapshot xmin>`: every transaction with a smaller id has finished (committed
 *   and visible to this statement, or rolled back and gone), and every transaction that has not
 *   finished, or has not started, has an xid ≥ xmin, so its events sort after everything served.
 *   The snapshot is the statement's own, so the bound and the rows agree. An open transaction
 *   holds the feed back (for every organization: xmin is cluster-wide) until it ends; that is
 *   the price of never skipping, and why writers keep their transactions short.
 * - SQLite: one writer at a time and id order is commit order (events/record.ts); a reader sees
 *   committed transactions only, so whatever it sees is already a prefix. No bound is needed.
 */

const VISIBLE: Record<'postgres' | 'sqlite', string> = {
	postgres: `AND id < 'evt_' || lpad(to_hex(pg_snapshot_xmin(pg_current_snapshot())::text::bigint), 16, '0')`,
	sqlite: '',
};

/** The id shape the server makes; anything else names no event. */
export const EVENT_ID = /^evt_[0-9a-f]{28}$/;

export interface EventRow {
	id: string;
	type: EventType;
	data: string;
	created_at: Date | string;
}

function database(): { sequelize: Sequelize; visible: string } {
	const sequelize = Event.sequelize!;
	return { sequelize, visible: VISIBLE[sequelize.getDialect() === 'postgres' ? 'postgres' : 'sqlite'] };
}

export interface FeedQuery {
	organizationId: string;
	/** Only events after this one; omitted: from the oldest kept. */
	after?: string;
	/** Only these types; omitted: every type. */
	types?: EventType[];
	limit: number;
}

/**
 * Checks a cursor: an event of the organization (served or not, whatever its type), else 410 if
 * retention removed it, else 400 naming `after`.
 */
async function checkCursor(organizationId: string, after: string): Promise<void> {
	const { sequelize, visible } = database();
	const notOurs = problems.invalidRequest([
		{ param: 'after', code: 'unknown_event', message: 'after must be the id of an event of your organization, as the feed returned it.' },
	]);
	if (!EVENT_ID.test(after)) throw notOurs;
	const [row] = await sequelize.query<{ organization_id: string }>(
		`SELECT organization_id FROM events WHERE id = $1 ${visible}`,
		{ bind: [after], type: QueryTypes.SELECT },
	);
	if (row) {
		if (row.organization_id !== organizationId) throw notOurs;
		return;
	}
	const [prune] = await sequelize.query<{ through: string | null }>('SELECT MAX(through) AS through FROM event_prunes', {
		type: QueryTypes.SELECT,
	});
	if (prune?.through && after <= prune.through) throw problems.cursorExpired();
	throw notOurs;
}

/** One page of the feed, oldest first, and whether more is there already. */
export async function readFeed(query: FeedQuery): Promise<{ rows: EventRow[]; hasMore: boolean }> {
	if (query.after !== undefined) await checkCursor(query.organizationId, query.after);
	const { sequelize, visible } = database();
	const bind: unknown[] = [query.organizationId, query.after ?? 'evt_', query.limit + 1];
	let typeFilter = '';
	if (query.types) {
		typeFilter = `AND type IN (${query.types.map((t) => `$${bind.push(t)}`).join(', ')})`;
	}
	const rows = await sequelize.query<EventRow>(
		`SELECT id, type, data, created_at FROM events
		WHERE organization_id = $1 AND id > $2 ${visible} ${typeFilter}
		ORDER BY id LIMIT $3`,
		{ bind, type: QueryTypes.SELECT },
	);
	const hasMore = rows.length > query.limit;
	return { rows: hasMore ? rows.slice(0, query.limit) : rows, hasMore };
}

/** One served event of the organization, or undefined. */
export async function findEvent(organizationId: string, id: string): Promise<EventRow | undefined> {
	if (!EVENT_ID.test(id)) return undefined;
	const { sequelize, visible } = database();
	const [row] = await sequelize.query<EventRow>(
		`SELECT id, type, data, created_at FROM events WHERE organization_id = $1 AND id = $2 ${visible}`,
		{ bind: [organizationId, id], type: QueryTypes.SELECT },
	);
	return row;
}

/** An event as the API shows it. `data` holds the record as JSON text, written with the event. */
export function serializeEvent(row: EventRow) {
	return {
		id: row.id,
		type: row.type,
		created_at: (toDate(row.created_at) as Date).toISOString(),
		data: { object: JSON.parse(row.data) as object },
	};
}
