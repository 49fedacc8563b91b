import { listEndpoint } from '../http/list';
import { WebhookEndpoint } from './model';
import { serializeEndpoint } from './serialize';

/** GET /api/v1/webhook_endpoints: the usual envelope, never a secret. */
export const listWebhookEndpoints = listEndpoint<WebhookEndpoint, Record<string, never>>({
	model: WebhookEndpoint,
	filters: {},
	where: (organizationId) => ({ organizationId }),
	serialize: (row) => serializeEndpoint(row),
});
