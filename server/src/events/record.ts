import type { Transaction } from 'sequelize';

import { database } from '../db';
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
 * Writes one event inside the transaction of the change it tells about, so both commit or
 * neither does. `object` is the record as the API shows it right after the change (the
 * component's own serializer made it). The database makes the id (events/queries.ts).
 */
export async function recordEvent(transaction: Transaction, event: EventInput): Promise<void> {
	await recordEvents(transaction, [event]);
}

/**
 * Several events of one transaction (the overdue sweep's batch), in the list's order: one INSERT
 * for them all, which also reads their organizations' webhook endpoints, and one for their
 * deliveries if any, instead of a round of statements per event: a write transaction stays short.
 */
export async function recordEvents(transaction: Transaction, events: readonly EventInput[]): Promise<void> {
	if (events.length === 0) return;
	const at = events.map((e) => e.at ?? new Date());
	const rows = events.map(({ organizationId, type, object, previousAttributes }, i): EventParams => [
		organizationId,
		type,
		JSON.stringify(object),
		at[i].toISOString(),
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
		events.map(({ organizationId, type }, i) => ({ id: ids[i], organizationId, type, at: at[i] })),
		endpoints,
	);
}
