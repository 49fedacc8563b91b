import { getEndpoint } from '../http/get-one';
import { WebhookEndpoint } from './model';
import { serializeEndpoint } from './serialize';

/** GET /api/v1/webhook_endpoints/{id} */
export const getWebhookEndpoint = getEndpoint({
	model: WebhookEndpoint,
	idKind: 'webhookEndpoint',
	noun: 'webhook endpoint',
	serialize: serializeEndpoint,
});
