import type { Transaction } from 'sequelize';

import { database } from '../db';
import { enqueueDeliveries } from '../webhooks/enqueue';
import { insertEvent } from './queries';
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
export async function recordEvent(
	transaction: Transaction,
	{ organizationId, type, object, at = new Date(), previousAttributes }: EventInput,
): Promise<void> {
	const previous = previousAttributes === undefined ? null : JSON.stringify(previousAttributes);
	const id = await insertEvent(database(), transaction, [organizationId, type, JSON.stringify(object), at.toISOString(), previous]);
	// Webhooks: the event's deliveries commit with it (webhooks/enqueue.ts).
	await enqueueDeliveries(transaction, { id, organizationId, type, at });
}
