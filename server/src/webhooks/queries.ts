import type { Table } from '../db/table';
import type { WebhookEndpoint } from './model';

/** An endpoint as the API reads one: never its secret. */
export type EndpointRow = Pick<WebhookEndpoint, 'id' | 'url' | 'events' | 'description' | 'status' | 'createdAt'>;

export const ENDPOINTS: Table<EndpointRow> = {
	name: 'webhook_endpoints',
	columns: { id: 'id', url: 'url', events: 'events', description: 'description', status: 'status', createdAt: 'created_at' },
	dates: ['createdAt'],
	// A deleted endpoint is kept for its delivery log (until retention), never shown.
	always: "status <> 'deleted'",
};
