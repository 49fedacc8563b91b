import { isIdOf } from '../../common/id-shapes';
import { problems } from '../../common/problem';
import { ok, type WriteHandler } from '../../http/answer';
import { parseBody } from '../../http/validate';
import { requeueDelivery } from '../requeue';
import { serializeDelivery } from './serialize';
import { emptyBody } from './empty-body';

/**
 * POST /api/v1/webhook_endpoints/{id}/deliveries/{delivery_id}/retry: a failed delivery (or a
 * delivered one, to resend it) is queued to be sent now; answers the delivery, pending. 409
 * `delivery_pending` while it is still owed or in flight, 409 `endpoint_disabled` when nothing
 * can be sent to the endpoint.
 */
export const retryDelivery: WriteHandler = async ({ body, params, caller }) => {
	parseBody(emptyBody, body ?? {});
	const { id, delivery_id: deliveryId } = params;
	const delivery =
		isIdOf('webhookEndpoint', id) && isIdOf('webhookDelivery', deliveryId) ? await requeueDelivery(caller.organization.id, id, deliveryId) : undefined;
	if (!delivery) throw problems.notFound('delivery of this webhook endpoint');
	return ok(serializeDelivery(delivery));
};
