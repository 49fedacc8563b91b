import { listEndpoint } from '../http/list';
import { ENDPOINTS, type EndpointRow } from './queries';
import { serializeEndpoint } from './serialize';

/** GET /api/v1/webhook_endpoints: the usual envelope, never a secret. */
export const listWebhookEndpoints = listEndpoint<EndpointRow, Record<string, never>>({
	table: ENDPOINTS,
	filters: {},
	where: () => undefined,
	serialize: serializeEndpoint,
});
