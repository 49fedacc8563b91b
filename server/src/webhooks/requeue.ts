import { Op } from 'sequelize';

import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { WebhookDelivery } from './model';
import { findEndpoint } from './service';
import { wakeDeliveryWorkers } from './wake';

export class DeliveryPendingError extends RuleError {
	constructor(deliveryId: string) {
		super('delivery_pending', 'This delivery is still pending (queued or being sent): wait for its outcome, then retry it if it failed.', { deliveryId });
		this.name = 'DeliveryPendingError';
	}
}

export class EndpointDisabledError extends RuleError {
	constructor(endpointId: string) {
		super('endpoint_disabled', 'The webhook endpoint is disabled, so nothing can be sent to it: enable it first (Settings → Webhooks).', { endpointId });
		this.name = 'EndpointDisabledError';
	}
}

/**
 * Re-queues a finished delivery (failed, or delivered: a resend) to be sent now, with a fresh
 * schedule of attempts. One conditional UPDATE decides under the row lock: of two concurrent
 * retries exactly one finds it finished and re-queues it; the other finds it pending (409), and
 * so does a retry of a delivery still owed or in flight, which is never sent twice at once. The
 * receipt is cleared: a resent event is the receiver's to take again. Returns the delivery, or
 * undefined when the endpoint (this organization's, not deleted) has no such delivery.
 */
export async function requeueDelivery(organizationId: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery | undefined> {
	const delivery = await writeTransaction(database(), async (transaction) => {
		const endpoint = await findEndpoint(organizationId, endpointId, transaction);
		if (!endpoint) return undefined;
		const where = { id: deliveryId, endpointId, organizationId };
		const now = new Date();
		const [requeued] = await WebhookDelivery.update(
			{ status: 'pending', attempts: 0, nextAttemptAt: now, deliveredAt: null, leaseUntil: null, leaseToken: null, lastError: null },
			{ where: { ...where, status: { [Op.ne]: 'pending' } }, transaction },
		);
		const row = await WebhookDelivery.findOne({ where, transaction });
		if (!row) return undefined;
		if (requeued !== 1) throw new DeliveryPendingError(deliveryId);
		// After the pending check: a delivery owed to a disabled endpoint is refused, not queued to fail.
		if (endpoint.status !== 'enabled') throw new EndpointDisabledError(endpointId);
		transaction.afterCommit(() => wakeDeliveryWorkers());
		return row;
	});
	return delivery;
}
