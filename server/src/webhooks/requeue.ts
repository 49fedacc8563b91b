import { Op } from 'sequelize';

import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { WebhookDelivery } from './model';
import { findEndpoint, type EndpointsOf } from './service';
import { wakeDeliveryWorkers } from './wake';

export class EndpointDisabledError extends RuleError {
	constructor(endpointId: string) {
		super('endpoint_disabled', 'The webhook endpoint is disabled, so nothing can be sent to it: enable it first (Settings → Webhooks).', { endpointId });
		this.name = 'EndpointDisabledError';
	}
}

/**
 * Sends a delivery again now, whatever its state (SPEC §22). A finished one (failed, or delivered:
 * a resend) is queued with a fresh schedule of attempts and its receipt cleared (a resent event is
 * the receiver's to take again). A pending one waiting for its next attempt is made due now, its
 * count kept, so if this send fails its schedule continues from there. One in flight is being sent
 * at this moment and is left as it is. Each is one conditional UPDATE under the row lock, so
 * concurrent resends and a worker's claim never send the delivery twice at once. Returns the
 * delivery, or undefined when the endpoint (of those `of` reaches, not deleted) has no such delivery.
 */
export async function requeueDelivery(of: EndpointsOf, endpointId: string, deliveryId: string): Promise<WebhookDelivery | undefined> {
	const delivery = await writeTransaction(database(), async (transaction) => {
		const endpoint = await findEndpoint(of, endpointId, transaction);
		if (!endpoint) return undefined;
		const where = { id: deliveryId, endpointId, organizationId: endpoint.organizationId };
		const exists = await WebhookDelivery.count({ where, transaction });
		if (exists === 0) return undefined;
		if (endpoint.status !== 'enabled') throw new EndpointDisabledError(endpointId);
		const now = new Date();
		const [requeued] = await WebhookDelivery.update(
			{ status: 'pending', attempts: 0, nextAttemptAt: now, deliveredAt: null, leaseUntil: null, leaseToken: null, lastError: null },
			{ where: { ...where, status: { [Op.ne]: 'pending' } }, transaction },
		);
		if (requeued === 0) {
			// Pending: due now unless an instance holds it (then it is being sent already).
			await WebhookDelivery.update(
				{ nextAttemptAt: now },
				{ where: { ...where, status: 'pending', [Op.or]: [{ leaseUntil: null }, { leaseUntil: { [Op.lt]: now } }] }, transaction },
			);
		}
		transaction.afterCommit(() => wakeDeliveryWorkers());
		return WebhookDelivery.findOne({ where, transaction });
	});
	return delivery ?? undefined;
}
