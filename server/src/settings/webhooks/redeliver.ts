import { isIdOf } from '../../common/id-shapes';
import { RuleError } from '../../common/rule-error';
import { requeueDelivery } from '../../webhooks/requeue';
import { notFound, type PageHandler } from '../pages';
import { viewerOf } from '../viewer';
import { WEBHOOKS, noticeThen } from './views';

/** POST …/deliveries/{delivery_id}/redeliver (SPEC §22): sent again now whatever its state, through the API's own requeueDelivery; a pending one keeps its schedule after. */
export const redeliverForm: PageHandler = async (req, res, deps) => {
	const { endpointId, deliveryId } = req.params;
	const page = `${WEBHOOKS}/${endpointId}/deliveries/${deliveryId}`;
	try {
		const delivery =
			isIdOf('webhookEndpoint', endpointId) && isIdOf('webhookDelivery', deliveryId) ? await requeueDelivery(viewerOf(res).organization.id, endpointId, deliveryId) : undefined;
		if (!delivery) return notFound(req, res, deps);
		await noticeThen(req, res, page, 'success', `${delivery.eventType} (${delivery.eventId}) is being sent again now: reload this page to see the new attempt.`);
	} catch (err) {
		// The endpoint is disabled: said on the delivery's page.
		if (!(err instanceof RuleError)) throw err;
		await noticeThen(req, res, page, 'error', err.message);
	}
};
