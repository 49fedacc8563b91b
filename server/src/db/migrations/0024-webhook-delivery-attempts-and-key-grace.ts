import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * SPEC §22. Every attempt of a delivery is kept, not only the last: `webhook_delivery_attempts`,
 * one row per send the worker made (written in the transaction that records the outcome on the
 * delivery), read as a delivery's attempts (`…/deliveries/{id}/attempts`, Settings → Webhooks)
 * and removed with its delivery by retention. `request_headers` is what was sent (JSON; the body
 * is the event's, the same every attempt, on the delivery); `response_body` the first 4 KB of
 * the answer, kept for public destinations only (null for private, loopback or allow-listed
 * ones: their status and `response_size` only). The attempt number is the delivery's count when
 * it was claimed; a resend of a finished delivery starts it again, so rows are keyed by their own id.
 *
 * `api_keys.grace_until`: a key rotated with `expire_old_after` keeps working until then
 * (status `rotated`); null for keys cut at once, as before.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.createTable('webhook_delivery_attempts', {
		id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
		delivery_id: { type: DataTypes.STRING(40), allowNull: false },
		attempt: { type: DataTypes.INTEGER, allowNull: false },
		started_at: { type: DataTypes.DATE, allowNull: false },
		duration_ms: { type: DataTypes.INTEGER, allowNull: false },
		status_code: { type: DataTypes.INTEGER, allowNull: true },
		error: { type: DataTypes.STRING(300), allowNull: true },
		request_headers: { type: DataTypes.TEXT, allowNull: true },
		response_body: { type: DataTypes.TEXT, allowNull: true },
		response_size: { type: DataTypes.INTEGER, allowNull: true },
	});
	await qi.addIndex('webhook_delivery_attempts', ['delivery_id', 'id'], { name: 'webhook_delivery_attempts_delivery' });
	await qi.addColumn('api_keys', 'grace_until', { type: DataTypes.DATE, allowNull: true });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.removeColumn('api_keys', 'grace_until');
	await qi.dropTable('webhook_delivery_attempts');
}
