import type { Transaction } from 'sequelize';

import { scopeList } from '../api-keys/model';
import { database } from '../db';
import { wakeDeliveryWorkers } from './wake';
import { deliverable } from './event-types';
import { WebhookDelivery } from './model';
import { SUBSCRIBERS } from './queries';

interface Subscriber {
	id: string;
	events: string;
	api_key_id: string | null;
	/** The owner key's scopes, null when the endpoint has no owner key (older than owners). */
	scopes: string | null;
	key_status: string | null;
}

/**
 * Called by events/record.ts in the transaction that writes the event: one delivery per
 * enabled endpoint of the organization that is sent the event's type: it subscribes to it and
 * its key's scopes can read it (SPEC §19). Because the deliveries commit with the event (or
 * roll back with it), no committed event can be missed and no delivery can exist for a change
 * that never happened; no cursor, no hold-back needed. An endpoint receives every event whose
 * transaction runs this after the endpoint's creation committed. The worker checks the key's
 * scopes again before sending: they are the scopes as they are at send time that count.
 */
export async function enqueueDeliveries(
	transaction: Transaction,
	event: { id: string; organizationId: string; type: string; at: Date },
): Promise<void> {
	const endpoints = await database().rows<Subscriber>(SUBSCRIBERS, [event.organizationId], transaction);
	const wanted = endpoints.filter((e) => {
		// A key that is no longer active owns no enabled endpoint (revoked: disabled; rotated: handed on).
		if (e.api_key_id === null) return deliverable(e.events.split(' '), null, event.type);
		if (e.key_status !== 'active' || e.scopes === null) return false;
		return deliverable(e.events.split(' '), scopeList(e.scopes), event.type);
	});
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
