import Joi from 'joi';

import { isIdOf } from '../../common/id-shapes';
import { problems } from '../../common/problem';
import { EVENT_ID } from '../../events/feed';
import { created, ok, type WriteHandler } from '../../http/answer';
import { parseBody } from '../../http/validate';
import { ownedBy } from '../service';
import { recordReceipt } from './record';

export const receiptBody = Joi.object<{ event_id: string }>({
	event_id: Joi.string().pattern(EVENT_ID, 'event id (evt_…)').required(),
})
	.required()
	.unknown(false);

/**
 * POST /api/v1/webhook_endpoints/{id}/receipts `{ "event_id" }`: the receiver's "I have this
 * event", sent before it acts on it. 201 with `first: true` for the first receipt, 200 with
 * `first: false` for every later one; 404 when the endpoint is not owed that event.
 */
export const receiveWebhookEvent: WriteHandler = async ({ body: raw, params, caller }) => {
	const endpointId = params.id;
	const body = parseBody(receiptBody, raw);
	const receipt = isIdOf('webhookEndpoint', endpointId) ? await recordReceipt(ownedBy(caller), endpointId, body.event_id) : undefined;
	if (!receipt) throw problems.notFound('delivery of this event to this endpoint');
	const answer = { endpoint_id: endpointId, event_id: body.event_id, received_at: receipt.receivedAt.toISOString(), first: receipt.first };
	return receipt.first ? created(`/api/v1/webhook_endpoints/${endpointId}`, answer) : ok(answer);
};
