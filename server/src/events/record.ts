import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

import { sqliteTimestamp } from '../db/reads';
import { enqueueDeliveries } from '../webhooks/enqueue';
import type { EventType } from './types';

/**
 * Writes one event inside the transaction of the change it tells about, so both commit or
 * neither does. `object` is the record as the API shows it right after the change (the
 * component's own serializer made it).
 *
 * The id is made by the database, in the statement that inserts it (see the 0006 migration):
 * - PostgreSQL: `evt_` + the transaction id + a sequence value. Ids are handed out in one order
 *   and transactions commit in another; putting the transaction id first lets the feed serve
 *   exactly the ids of finished transactions (events/feed.ts), which form a prefix of id order.
 *   pg_current_xact_id() is the top-level transaction's id, even inside a savepoint.
 * - SQLite: `evt_` + zeros + the next AUTOINCREMENT value. The whole write transaction holds
 *   SQLite's single write lock (BEGIN IMMEDIATE), so no other writer can take an id, let alone
 *   commit, between this insert and this commit: id order is commit order.
 */
const INSERT: Record<'postgres' | 'sqlite', string> = {
	postgres: `INSERT INTO events (id, organization_id, type, data, created_at, previous_attributes)
		VALUES ('evt_' || lpad(to_hex(pg_current_xact_id()::text::bigint), 16, '0') || lpad(to_hex(nextval('events_seq')), 12, '0'),
			$1, $2, $3, $4, $5) RETURNING id`,
	sqlite: `INSERT INTO events (seq, id, organization_id, type, data, created_at, previous_attributes)
		SELECT next.seq, 'evt_' || printf('%016x%012x', 0, next.seq), $1, $2, $3, $4, $5
		FROM (SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0) + 1 AS seq) AS next`,
};

/**
 * A timestamp as bound into raw SQL. PostgreSQL takes ISO 8601. SQLite stores text, compared as
 * text, so it gets the exact form Sequelize writes for DATE columns there: raw and model writes
 * then sort and compare alike.
 */
export function storedDate(sequelize: Sequelize, date: Date): string {
	return sequelize.getDialect() === 'sqlite' ? sqliteTimestamp(date) : date.toISOString();
}

export interface EventInput {
	organizationId: string;
	type: EventType;
	object: object;
	/** When the change happened; defaults to now. */
	at?: Date;
	/** `user.updated`: the changed fields' old values, shown as `data.previous_attributes`. */
	previousAttributes?: object;
}

export async function recordEvent(
	transaction: Transaction,
	{ organizationId, type, object, at = new Date(), previousAttributes }: EventInput,
): Promise<void> {
	// Sequelize's typings omit the transaction's own instance.
	const { sequelize } = transaction as Transaction & { sequelize: Sequelize };
	const dialect = sequelize.getDialect() === 'postgres' ? 'postgres' : 'sqlite';
	const previous = previousAttributes === undefined ? null : JSON.stringify(previousAttributes);
	const bind = [organizationId, type, JSON.stringify(object), storedDate(sequelize, at), previous];
	let id: string;
	if (dialect === 'postgres') {
		[{ id }] = await sequelize.query<{ id: string }>(INSERT.postgres, { bind, type: QueryTypes.SELECT, transaction });
	} else {
		// Sequelize runs an INSERT on SQLite without reading rows back, so RETURNING is read apart.
		await sequelize.query(INSERT.sqlite, { bind, type: QueryTypes.INSERT, transaction });
		[{ id }] = await sequelize.query<{ id: string }>('SELECT id FROM events WHERE seq = last_insert_rowid()', {
			type: QueryTypes.SELECT,
			transaction,
		});
	}
	// Webhooks: the event's deliveries commit with it (webhooks/enqueue.ts).
	await enqueueDeliveries(transaction, { id, organizationId, type, at });
}
