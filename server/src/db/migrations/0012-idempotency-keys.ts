import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Idempotency keys (SPEC §18): one row per organization and key, claimed by its unique index
 * before the request runs (so two instances cannot both run it), then holding the first answer
 * for 24 hours. Expired rows are removed by age through their own index, never by a scan.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.createTable('idempotency_keys', {
		id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
		organization_id: {
			type: DataTypes.STRING(40),
			allowNull: false,
			references: { model: 'organizations', key: 'id' },
			onDelete: 'CASCADE',
		},
		/** The client's key, 1–255 printable ASCII characters. */
		key: { type: DataTypes.STRING(255), allowNull: false },
		/** SHA-256 (hex) of the method, the path and the body: what "the same request" means. */
		fingerprint: { type: DataTypes.STRING(64), allowNull: false },
		/** For the 422's sentence: which request the key was first used for. */
		method: { type: DataTypes.STRING(10), allowNull: false },
		path: { type: DataTypes.STRING(2048), allowNull: false },
		/** Who holds the claim while the request runs; null once the answer is kept. */
		claim_token: { type: DataTypes.STRING(40), allowNull: true },
		/** A claim not finished by then was left by a process that died: another may take it. */
		claimed_until: { type: DataTypes.DATE, allowNull: true },
		/** The kept answer; null while the request runs. */
		response_status: { type: DataTypes.INTEGER, allowNull: true },
		/** JSON object of the answer's headers that are part of it (Content-Type, Location). */
		response_headers: { type: DataTypes.TEXT, allowNull: true },
		response_body: { type: DataTypes.TEXT, allowNull: true },
		expires_at: { type: DataTypes.DATE, allowNull: false },
		created_at: { type: DataTypes.DATE, allowNull: false },
		updated_at: { type: DataTypes.DATE, allowNull: false },
	});
	await qi.addIndex('idempotency_keys', ['organization_id', 'key'], { unique: true, name: 'idempotency_keys_org_key' });
	await qi.addIndex('idempotency_keys', ['expires_at'], { name: 'idempotency_keys_expiry' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.dropTable('idempotency_keys');
}
