import type { Transaction } from 'sequelize';

import { database } from '../db';
import { atCommit } from '../db/write-transaction';
import { enqueueDeliveries, type Subscriber } from '../webhooks/enqueue';
import { subscribersOf } from '../webhooks/queries';
import { organizationTag } from './ids';
import { insertEvents, type EventParams } from './queries';
import type { EventType } from './types';

export interface EventInput {
	organizationId: string;
	type: EventType;
	object: object;
	/** When the change happened; defaults to now. */
	at?: Date;
	/** `user.updated`: the changed fields' old values, shown as `data.previous_attributes`. */
	previousAttributes?: object;
}

/**
 * Records one event in the transaction of the change it tells about, so both commit or neither
 * does. `object` is the record as the API shows it right after the change (the component's own
 * serializer made it). The database makes the id (events/queries.ts).
 */
export async function recordEvent(transaction: Transaction, event: EventInput): Promise<void> {
	await recordEvents(transaction, [event]);
}

/**
 * Several events of one transaction (the overdue sweep's batch), in the list's order. They are
 * written when the transaction commits (db/write-transaction.ts atCommit), together with every
 * other event it records: an event's number is its place in commit order, so the lock that gives
 * numbers is taken right before the COMMIT and held for nothing else (events/queries.ts). An event
 * recorded in a savepoint that fails is never written.
 */
export function recordEvents(transaction: Transaction, events: readonly EventInput[]): Promise<void> {
	const at = new Date();
	if (events.length > 0) atCommit(transaction, 'events', events.map((event) => ({ ...event, at: event.at ?? at })), writeEvents);
	// A promise still, as when the events were written here: callers await it inside their writes.
	return Promise.resolve();
}

/**
 * One INSERT for the transaction's events, which also reads their organizations' webhook
 * endpoints, and one for their deliveries if any, instead of a round of statements per event.
 */
async function writeEvents(transaction: Transaction, events: Array<EventInput & { at: Date }>): Promise<void> {
	const rows = events.map(({ organizationId, type, object, at, previousAttributes }): EventParams => [
		organizationId,
		type,
		JSON.stringify(object),
		at.toISOString(),
		previousAttributes === undefined ? null : JSON.stringify(previousAttributes),
		organizationTag(organizationId),
	]);
	const db = database();
	// The same statement reads the organizations' webhook endpoints.
	const { ids, extra } = await insertEvents(db, transaction, rows, (organizations) => subscribersOf(db, organizations));
	const endpoints = JSON.parse(extra as string) as Subscriber[];
	// Webhooks: the events' deliveries commit with them (webhooks/enqueue.ts).
	await enqueueDeliveries(
		transaction,
		events.map(({ organizationId, type, at }, i) => ({ id: ids[i], organizationId, type, at })),
		endpoints,
	);
}
