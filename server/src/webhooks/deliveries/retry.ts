import { isIdOf } from '../../common/id-shapes';
import { problems } from '../../common/problem';
import { ok, type WriteHandler } from '../../http/answer';
import { parseBody } from '../../http/validate';
import { requeueDelivery } from '../requeue';
import { ownedBy } from '../service';
import { serializeDelivery } from './serialize';
import { emptyBody } from './empty-body';

/**
 * POST /api/v1/webhook_endpoints/{id}/deliveries/{delivery_id}/retry: the delivery is sent again
 * now, whatever its state (webhooks/requeue.ts); answers it, pending. 409 `endpoint_disabled`
 * when nothing can be sent to the endpoint.
 */
export const retryDelivery: WriteHandler = async ({ body, params, caller }) => {
	parseBody(emptyBody, body ?? {});
	const { id, delivery_id: deliveryId } = params;
	const delivery =
		isIdOf('webhookEndpoint', id) && isIdOf('webhookDelivery', deliveryId) ? await requeueDelivery(ownedBy(caller), id, deliveryId) : undefined;
	if (!delivery) throw problems.notFound('delivery of this webhook endpoint');
	return ok(serializeDelivery(delivery, caller.apiKey.scopeList));
};
