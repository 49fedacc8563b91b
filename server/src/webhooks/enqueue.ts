import type { Transaction } from 'sequelize';

import { wakeDeliveryWorkers } from './wake';
import { subscribes } from './event-types';
import { WebhookDelivery, WebhookEndpoint } from './model';

/**
 * Called by events/record.ts in the transaction that writes the event: one delivery per
 * enabled endpoint of the organization that subscribes to the event's type. Because the
 * deliveries commit with the event (or roll back with it), no committed event can be missed
 * and no delivery can exist for a change that never happened; no cursor, no hold-back needed.
 * An endpoint receives every event whose transaction runs this after the endpoint's creation
 * committed.
 */
export async function enqueueDeliveries(
	transaction: Transaction,
	event: { id: string; organizationId: string; type: string; at: Date },
): Promise<void> {
	const endpoints = await WebhookEndpoint.findAll({
		where: { organizationId: event.organizationId, status: 'enabled' },
		attributes: ['id', 'events'],
		transaction,
	});
	const wanted = endpoints.filter((e) => subscribes(e.events.split(' '), event.type));
	if (wanted.length === 0) return;
	await WebhookDelivery.bulkCreate(
		wanted.map((endpoint) => ({
			organizationId: event.organizationId,
			endpointId: endpoint.id,
			eventId: event.id,
			eventType: event.type,
			nextAttemptAt: event.at,
		})),
		{ transaction },
	);
	// This process's workers start at once; other instances find the rows at their next poll.
	transaction.afterCommit(() => wakeDeliveryWorkers());
}
