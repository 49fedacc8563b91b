import { randomBytes } from 'node:crypto';

import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { WebhookDelivery } from './model';
import { EndpointDisabledError } from './requeue';
import { findEndpoint, type EndpointsOf } from './service';
import { wakeDeliveryWorkers } from './wake';

/** SPEC §19: the type of the event `POST …/test` sends. Never in the feed, sent to one endpoint only. */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * Queues a `webhook.test` event for one endpoint: a delivery like any other (signed, retried,
 * listed, receipted), whose event is not written to the feed, so no other endpoint and no feed
 * reader sees it. Its id has the shape of an event id (`evt_` + 28 hex) so that receivers that
 * check ids or send receipts treat it as they would a real one; the worker writes its body from
 * the delivery (webhooks/worker.ts). Undefined when there is no such endpoint.
 */
export async function queueTestEvent(of: EndpointsOf, endpointId: string): Promise<WebhookDelivery | undefined> {
	return writeTransaction(database(), async (transaction) => {
		const endpoint = await findEndpoint(of, endpointId, transaction);
		if (!endpoint) return undefined;
		if (endpoint.status !== 'enabled') throw new EndpointDisabledError(endpointId);
		const now = new Date();
		const delivery = await WebhookDelivery.create(
			{
				organizationId: endpoint.organizationId,
				endpointId,
				eventId: `evt_${randomBytes(14).toString('hex')}`,
				eventType: TEST_EVENT_TYPE,
				nextAttemptAt: now,
			},
			{ transaction },
		);
		transaction.afterCommit(() => wakeDeliveryWorkers());
		return delivery;
	});
}

/** The body of a test event: the shape of every event, its object naming the endpoint it tests. */
export function testEventJson(eventId: string, endpointId: string, createdAt: Date): string {
	return JSON.stringify({
		id: eventId,
		type: TEST_EVENT_TYPE,
		created_at: createdAt.toISOString(),
		data: { object: { endpoint_id: endpointId, message: 'A test event sent from the LMS: your endpoint receives and verifies deliveries.' } },
	});
}
