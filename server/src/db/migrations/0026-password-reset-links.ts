import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Passwords (SPEC §22): the one-time reset links an operator hands out (`lms-server users
 * reset-link`), stored as the SHA-256 digest of the token only, so a copy of the database opens
 * no account; and the audit log learns whose password a `password.*` entry is about (`user_id`).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.createTable('password_reset_links', {
		token_hash: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
		user_id: { type: DataTypes.STRING(40), allowNull: false },
		organization_id: { type: DataTypes.STRING(40), allowNull: false },
		expires_at: { type: DataTypes.DATE, allowNull: false },
		used_at: { type: DataTypes.DATE, allowNull: true },
		created_at: { type: DataTypes.DATE, allowNull: false },
	});
	// A new password voids the user's other outstanding links.
	await qi.addIndex('password_reset_links', ['user_id'], { name: 'password_reset_links_user' });
	await qi.addColumn('audit_events', 'user_id', { type: DataTypes.STRING(40), allowNull: true });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.removeColumn('audit_events', 'user_id');
	await qi.dropTable('password_reset_links');
}
