import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Each delivery keeps its last attempt's exchange (SPEC §19: Settings → Webhooks shows each
 * delivery's request and response): `last_request` (JSON: headers and body) and
 * `last_response_body`, bodies cut to a few KB (webhooks/exchange.ts). Rows older than this
 * have none. The index serves an endpoint's delivery log (`GET …/{id}/deliveries`, newest
 * first). Measured on PostgreSQL 16 with two endpoints of 200,000 deliveries each, the older one's first page: 77 ms walking the organization's index past the newer endpoint's rows, 0.05 ms with this one.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.addColumn('webhook_deliveries', 'last_request', { type: DataTypes.TEXT, allowNull: true });
	await qi.addColumn('webhook_deliveries', 'last_response_body', { type: DataTypes.TEXT, allowNull: true });
	await qi.addIndex('webhook_deliveries', ['endpoint_id', 'created_at', 'id'], { name: 'webhook_deliveries_endpoint_recent' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.removeIndex('webhook_deliveries', 'webhook_deliveries_endpoint_recent');
	await qi.removeColumn('webhook_deliveries', 'last_response_body');
	await qi.removeColumn('webhook_deliveries', 'last_request');
}
