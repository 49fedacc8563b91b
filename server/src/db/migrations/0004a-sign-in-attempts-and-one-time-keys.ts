import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Two small tables for issue 10's hardening:
 *
 * - `sign_in_attempts`: every sign-in, with the e-mail attempted, the IP and how it ended. It is
 *   the audit log of sign-ins and the counter the throttle reads (SPEC §14), so the limit holds
 *   across instances without Redis.
 * - `one_time_keys`: a new key's sealed secret until the one page that shows it claims it with a
 *   DELETE; the row count of that DELETE is what makes "shown once" hold for concurrent requests.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.createTable('sign_in_attempts', {
		id: { type: DataTypes.STRING(40), primaryKey: true, allowNull: false },
		email: { type: DataTypes.STRING(254), allowNull: false },
		ip: { type: DataTypes.STRING(64), allowNull: false },
		outcome: { type: DataTypes.STRING(20), allowNull: false },
		user_id: { type: DataTypes.STRING(40), allowNull: true },
		organization_id: { type: DataTypes.STRING(40), allowNull: true },
		user_agent: { type: DataTypes.STRING(300), allowNull: true },
		created_at: { type: DataTypes.DATE, allowNull: false },
		updated_at: { type: DataTypes.DATE, allowNull: false },
	});
	// The throttle counts by account and by IP within the last window.
	await qi.addIndex('sign_in_attempts', ['email', 'created_at'], { name: 'sign_in_attempts_email_time' });
	await qi.addIndex('sign_in_attempts', ['ip', 'created_at'], { name: 'sign_in_attempts_ip_time' });

	await qi.createTable('one_time_keys', {
		id: { type: DataTypes.STRING(40), primaryKey: true, allowNull: false },
		sealed: { type: DataTypes.TEXT, allowNull: false },
		created_at: { type: DataTypes.DATE, allowNull: false },
	});
	await qi.addIndex('one_time_keys', ['created_at'], { name: 'one_time_keys_created' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.dropTable('one_time_keys');
	await qi.dropTable('sign_in_attempts');
}
