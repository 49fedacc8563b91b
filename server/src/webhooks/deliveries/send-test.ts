import { isIdOf } from '../../common/id-shapes';
import { problems } from '../../common/problem';
import { created, type WriteHandler } from '../../http/answer';
import { parseBody } from '../../http/validate';
import { ownedBy } from '../service';
import { queueTestEvent } from '../test-event';
import { emptyBody } from './empty-body';
import { serializeDelivery } from './serialize';

/**
 * POST /api/v1/webhook_endpoints/{id}/test: a `webhook.test` event to this endpoint only (no
 * feed, no other endpoint); 201 with its delivery, pending, to follow in …/deliveries.
 */
export const sendTestEvent: WriteHandler = async ({ body, params, caller }) => {
	parseBody(emptyBody, body ?? {});
	const delivery = isIdOf('webhookEndpoint', params.id) ? await queueTestEvent(ownedBy(caller), params.id) : undefined;
	if (!delivery) throw problems.notFound('webhook endpoint');
	return created(`/api/v1/webhook_endpoints/${params.id}/deliveries`, serializeDelivery(delivery, caller.apiKey.scopeList));
};
