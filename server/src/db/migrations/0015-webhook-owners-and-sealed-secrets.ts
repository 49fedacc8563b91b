import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Webhook endpoints get an owner and a trail (issue 27, SPEC §19):
 * - `api_key_id`: the key whose scopes bound what the endpoint receives (its creator, or the key
 *   that replaced it by rotation); null for endpoints made before this migration.
 * - `created_by` (a user id, `cli`, or the creating key's id) and `created_ip`.
 * - `deleted_at`: a deleted endpoint is kept (hidden) with its delivery log until retention
 *   removes both, instead of erasing the log with it.
 * - `disabled_reason`: why an endpoint stopped (its key revoked, three days of failures).
 * - `previous_secret` / `previous_secret_until`: after `rotate_secret`, the old secret still signs
 *   beside the new one until then.
 * - `secret` becomes TEXT: it now holds the secret sealed (common/seal.ts), which is longer than
 *   the plaintext. SQLite does not enforce VARCHAR lengths, so only PostgreSQL needs the change.
 *   Existing plaintext secrets are sealed right after the migrations run (webhooks/secrets.ts:
 *   sealing needs the server's secret, which migrations do not get).
 * - `audit_events.webhook_endpoint_id`: which endpoint a `webhook.*` entry is about.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	const column = (type: DataTypes.DataType) => ({ type, allowNull: true });
	await qi.addColumn('webhook_endpoints', 'api_key_id', column(DataTypes.STRING(40)));
	await qi.addColumn('webhook_endpoints', 'created_by', column(DataTypes.STRING(40)));
	await qi.addColumn('webhook_endpoints', 'created_ip', column(DataTypes.STRING(64)));
	await qi.addColumn('webhook_endpoints', 'deleted_at', column(DataTypes.DATE));
	await qi.addColumn('webhook_endpoints', 'disabled_reason', column(DataTypes.STRING(100)));
	await qi.addColumn('webhook_endpoints', 'previous_secret', column(DataTypes.TEXT));
	await qi.addColumn('webhook_endpoints', 'previous_secret_until', column(DataTypes.DATE));
	await qi.addIndex('webhook_endpoints', ['api_key_id'], { name: 'webhook_endpoints_api_key' });
	await qi.addColumn('audit_events', 'webhook_endpoint_id', column(DataTypes.STRING(40)));
	if (qi.sequelize.getDialect() === 'postgres') {
		await qi.sequelize.query('ALTER TABLE "webhook_endpoints" ALTER COLUMN "secret" TYPE TEXT');
	}
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.removeColumn('audit_events', 'webhook_endpoint_id');
	await qi.removeIndex('webhook_endpoints', 'webhook_endpoints_api_key');
	for (const name of ['api_key_id', 'created_by', 'created_ip', 'deleted_at', 'disabled_reason', 'previous_secret', 'previous_secret_until']) {
		await qi.removeColumn('webhook_endpoints', name);
	}
}
