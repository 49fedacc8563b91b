import { getEndpoint } from '../http/get-one';
import { ENDPOINTS } from './queries';
import { serializeEndpoint } from './serialize';

/** GET /api/v1/webhook_endpoints/{id} */
export const getWebhookEndpoint = getEndpoint({ table: ENDPOINTS, idKind: 'webhookEndpoint', noun: 'webhook endpoint', serialize: serializeEndpoint });
