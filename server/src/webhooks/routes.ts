import type { AppDeps } from '../http/deps';
import type { RouteTable } from '../http/routes';
import { createWebhookEndpoint } from './create';
import { deleteWebhookEndpoint } from './delete';
import { getWebhookEndpoint } from './get';
import { listWebhookEndpoints } from './list';
import { patchWebhookEndpoint } from './update';
import { listAttempts } from './attempts/list';
import { endpointOfPath, listDeliveries } from './deliveries/list';
import { retryDelivery } from './deliveries/retry';
import { sendTestEvent } from './deliveries/send-test';
import { receiveWebhookEvent } from './receipts/create';
import { rotateWebhookSecret } from './rotate';

export function webhookRoutes(deps: Pick<AppDeps, 'config'>): RouteTable {
	return {
		'/webhook_endpoints': {
			get: { scope: 'manage:webhooks', handlers: [listWebhookEndpoints] },
			post: { scope: 'manage:webhooks', write: createWebhookEndpoint(deps) },
		},
		'/webhook_endpoints/:id': {
			get: { scope: 'manage:webhooks', handlers: [getWebhookEndpoint] },
			patch: { scope: 'manage:webhooks', write: patchWebhookEndpoint(deps) },
			delete: { scope: 'manage:webhooks', handlers: [deleteWebhookEndpoint] },
		},
		'/webhook_endpoints/:id/receipts': {
			post: { scope: 'manage:webhooks', write: receiveWebhookEvent },
		},
		'/webhook_endpoints/:id/deliveries': {
			get: { scope: 'manage:webhooks', handlers: [endpointOfPath, listDeliveries] },
		},
		'/webhook_endpoints/:id/deliveries/:delivery_id/attempts': {
			get: { scope: 'manage:webhooks', handlers: [listAttempts] },
		},
		'/webhook_endpoints/:id/deliveries/:delivery_id/retry': {
			post: { scope: 'manage:webhooks', write: retryDelivery },
		},
		'/webhook_endpoints/:id/test': {
			post: { scope: 'manage:webhooks', write: sendTestEvent },
		},
		'/webhook_endpoints/:id/rotate_secret': {
			post: { scope: 'manage:webhooks', write: rotateWebhookSecret(deps) },
		},
	};
}
