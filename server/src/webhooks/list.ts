import { listEndpoint } from '../http/list';
import { ENDPOINTS, type EndpointRow } from './queries';
import { serializeEndpoint } from './serialize';

/** GET /api/v1/webhook_endpoints: the calling key's endpoints (SPEC §22), the usual envelope, never a secret. */
export const listWebhookEndpoints = listEndpoint<EndpointRow, Record<string, never>>({
	table: ENDPOINTS,
	filters: {},
	where: (where, _filters, _organizationId, _params, caller) => where.equals('api_key_id', caller.apiKey.id),
	serialize: serializeEndpoint,
});
