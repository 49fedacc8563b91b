import { DataTypes, type QueryInterface } from 'sequelize';

const timestamps = {
	created_at: { type: DataTypes.DATE, allowNull: false },
	updated_at: { type: DataTypes.DATE, allowNull: false },
};

/**
 * Webhook endpoints and their deliveries (SPEC §12). A delivery row is written in the same
 * transaction as its event, so a committed event always has its deliveries and a rolled-back
 * change has none; the row is also the retry state, so a restart or a crash loses nothing.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.createTable('webhook_endpoints', {
		id: { type: DataTypes.STRING(40), primaryKey: true, allowNull: false },
		organization_id: {
			type: DataTypes.STRING(40),
			allowNull: false,
			references: { model: 'organizations', key: 'id' },
			onDelete: 'CASCADE',
		},
		url: { type: DataTypes.STRING(2048), allowNull: false },
		/** Space-separated event types, or `*`. */
		events: { type: DataTypes.STRING(500), allowNull: false },
		description: { type: DataTypes.STRING(500), allowNull: true },
		status: { type: DataTypes.STRING(20), allowNull: false },
		/** The signing secret (whsec_…): the server needs it to sign, so it is kept; see docs/webhooks.md. */
		secret: { type: DataTypes.STRING(80), allowNull: false },
		/** When the current run of failed attempts began (null while deliveries succeed). */
		failing_since: { type: DataTypes.DATE, allowNull: true },
		...timestamps,
	});
	await qi.addIndex('webhook_endpoints', ['organization_id', 'created_at', 'id'], { name: 'webhook_endpoints_org_order' });

	await qi.createTable('webhook_deliveries', {
		id: { type: DataTypes.STRING(40), primaryKey: true, allowNull: false },
		organization_id: { type: DataTypes.STRING(40), allowNull: false },
		endpoint_id: {
			type: DataTypes.STRING(40),
			allowNull: false,
			references: { model: 'webhook_endpoints', key: 'id' },
			onDelete: 'CASCADE',
		},
		event_id: { type: DataTypes.STRING(40), allowNull: false },
		event_type: { type: DataTypes.STRING(60), allowNull: false },
		/** pending → delivered | failed */
		status: { type: DataTypes.STRING(20), allowNull: false },
		attempts: { type: DataTypes.INTEGER, allowNull: false },
		next_attempt_at: { type: DataTypes.DATE, allowNull: false },
		/** Set when an instance claims the attempt; another instance may take it only after it passes. */
		lease_until: { type: DataTypes.DATE, allowNull: true },
		lease_token: { type: DataTypes.STRING(40), allowNull: true },
		last_status_code: { type: DataTypes.INTEGER, allowNull: true },
		last_error: { type: DataTypes.STRING(300), allowNull: true },
		last_attempt_at: { type: DataTypes.DATE, allowNull: true },
		delivered_at: { type: DataTypes.DATE, allowNull: true },
		...timestamps,
	});
	await qi.addIndex('webhook_deliveries', ['endpoint_id', 'event_id'], { unique: true, name: 'webhook_deliveries_endpoint_event' });
	await qi.addIndex('webhook_deliveries', ['status', 'next_attempt_at'], { name: 'webhook_deliveries_due' });
	await qi.addIndex('webhook_deliveries', ['organization_id', 'created_at'], { name: 'webhook_deliveries_org_recent' });
	// Byte order for ids on PostgreSQL, as in 0003: the endpoint list is ordered by (created_at, id).
	if (qi.sequelize.getDialect() === 'postgres') {
		await qi.sequelize.query('ALTER TABLE "webhook_endpoints" ALTER COLUMN "id" TYPE VARCHAR(40) COLLATE "C"');
	}
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.dropTable('webhook_deliveries');
	await qi.dropTable('webhook_endpoints');
}
