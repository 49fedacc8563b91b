import type { QueryInterface } from 'sequelize';

/**
 * The worker's claim (webhooks/queries.ts) reads, for each endpoint, its oldest few due
 * deliveries. This partial index holds only pending rows, by endpoint and due time, so that read
 * is a short range per endpoint however long the backlog or the delivery log; before it, every
 * claim ranked every due row (30,000 due: about 100 ms per claim at load 15, the bound on
 * throughput to fast receivers; bench/webhook-throughput.ts).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.sequelize.query(
		`CREATE INDEX webhook_deliveries_pending_by_endpoint ON webhook_deliveries (endpoint_id, next_attempt_at, id)
		 WHERE status = 'pending'`,
	);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.sequelize.query('DROP INDEX webhook_deliveries_pending_by_endpoint');
}
