import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Sessions of the settings pages, in the shape connect-session-sequelize reads and writes
 * (`sid`, `expires`, `data`). Kept in the database so that a restart or a second instance
 * does not sign anybody out.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.createTable('sessions', {
		sid: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
		expires: { type: DataTypes.DATE, allowNull: true },
		data: { type: DataTypes.TEXT, allowNull: true },
		created_at: { type: DataTypes.DATE, allowNull: false },
		updated_at: { type: DataTypes.DATE, allowNull: false },
	});
	// The store's periodic clean-up deletes by expiry.
	await qi.addIndex('sessions', ['expires'], { name: 'sessions_expires' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.dropTable('sessions');
}
