import { database } from '../../db';
import { writeTransaction } from '../../db/write-transaction';
import { WebhookDelivery } from '../model';
import { findEndpoint, type EndpointsOf } from '../service';

export interface Receipt {
	/** True for the one call that received the event first. */
	first: boolean;
	receivedAt: Date;
}

/**
 * Records that an endpoint's receiver has an event: the first receipt marks the delivery
 * delivered (the LMS stops retrying it, even if the 2xx of the attempt that carried it was
 * lost); later receipts, and receipts of an event the receiver already answered with a 2xx,
 * are not first. One conditional UPDATE on the delivery row decides, under the database's row
 * lock, so of any number of concurrent receipts exactly one is first, on every instance.
 * Undefined when the endpoint (of this organization, not deleted) is not owed this event.
 *
 * Why the LMS keeps this rather than the receiver: a receiver such as n8n cannot always keep
 * state between requests (n8n 2.41 does not save what a webhook writes into the workflow's
 * static data), and copies of one delivery may arrive at once.
 */
export async function recordReceipt(of: EndpointsOf, endpointId: string, eventId: string): Promise<Receipt | undefined> {
	const endpoint = await findEndpoint(of, endpointId);
	if (!endpoint) return undefined;
	const where = { organizationId: endpoint.organizationId, endpointId, eventId };
	const now = new Date();
	const [claimed] = await writeTransaction(database(), (transaction) =>
		WebhookDelivery.update({ status: 'delivered', deliveredAt: now }, { where: { ...where, deliveredAt: null }, transaction }),
	);
	const delivery = await WebhookDelivery.findOne({ where, attributes: ['deliveredAt'] });
	if (!delivery) return undefined;
	return { first: claimed === 1, receivedAt: delivery.deliveredAt ?? now };
}
