import { isIdOf } from '../../common/id-shapes';
import { serializeAttempt } from '../../webhooks/attempts/serialize';
import { findDelivery } from '../../webhooks/deliveries/find';
import { serializeDelivery } from '../../webhooks/deliveries/serialize';
import { notFound, type PageHandler } from '../pages';
import { viewerOf } from '../viewer';
import { EVERY_SCOPE, endpointView, resultOf } from './views';

/**
 * GET /settings/webhooks/{id}/deliveries/{delivery_id}: one delivery with every attempt kept (time,
 * status, duration, the request's headers and body, the answer) and the next attempt when one is owed.
 */
export const deliveryPage: PageHandler = async (req, res, deps) => {
	const { endpointId, deliveryId } = req.params;
	const found =
		isIdOf('webhookEndpoint', endpointId) && isIdOf('webhookDelivery', deliveryId)
			? await findDelivery(viewerOf(res).organization.id, endpointId, deliveryId)
			: undefined;
	if (!found) return notFound(req, res, deps);
	await deps.views.render(req, res, 'webhook-delivery.njk', {
		endpoint: endpointView(found.endpoint),
		delivery: { ...serializeDelivery(found.delivery, EVERY_SCOPE), result: resultOf(found.delivery) },
		// The newest first, as a person looks for what just happened; the newest one open.
		attempts: found.attempts.map(serializeAttempt).reverse(),
	});
};
