import type { AppDeps } from '../http/deps';
import type { RouteTable } from '../http/routes';
import { createWebhookEndpoint } from './create';
import { deleteWebhookEndpoint } from './delete';
import { getWebhookEndpoint } from './get';
import { listWebhookEndpoints } from './list';
import { receiveWebhookEvent } from './receipts/create';

export function webhookRoutes(deps: Pick<AppDeps, 'config'>): RouteTable {
	return {
		'/webhook_endpoints': {
			get: { scope: 'manage:webhooks', handlers: [listWebhookEndpoints] },
			post: { scope: 'manage:webhooks', write: createWebhookEndpoint(deps) },
		},
		'/webhook_endpoints/:id': {
			get: { scope: 'manage:webhooks', handlers: [getWebhookEndpoint] },
			delete: { scope: 'manage:webhooks', handlers: [deleteWebhookEndpoint] },
		},
		'/webhook_endpoints/:id/receipts': {
			post: { scope: 'manage:webhooks', write: receiveWebhookEvent },
		},
	};
}
