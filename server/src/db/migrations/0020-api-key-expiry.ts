import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * An API key may carry an expiry date chosen at creation (issue 30): `expires_at` (null: never).
 * `expiry_reminded_at` and `expiry_recorded_at` mark the audit entries already written for it
 * ("expires within 7 days", "expired"), so that each is written once per key, however many
 * instances sweep (api-keys/expiry.ts claims them with a conditional UPDATE).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.addColumn('api_keys', 'expires_at', { type: DataTypes.DATE, allowNull: true });
	await qi.addColumn('api_keys', 'expiry_reminded_at', { type: DataTypes.DATE, allowNull: true });
	await qi.addColumn('api_keys', 'expiry_recorded_at', { type: DataTypes.DATE, allowNull: true });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.removeColumn('api_keys', 'expiry_recorded_at');
	await qi.removeColumn('api_keys', 'expiry_reminded_at');
	await qi.removeColumn('api_keys', 'expires_at');
}
