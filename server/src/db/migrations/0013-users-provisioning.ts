import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Provisioning (SPEC §16): users gain `status`, `external_id` and `deactivated_at`; events gain
 * the old values of what a `user.updated` changed.
 *
 * - Existing users are `active`.
 * - `external_id` is unique within an organization. Several users without one are allowed: both
 *   dialects treat NULLs in a unique index as distinct. The same index is how identity providers
 *   find a user by their own id (`users?external_id=`), one index read on any size of organization.
 * - E-mail becomes unique within an organization (SPEC §16: "an e-mail already used in the
 *   organization"), not across all of them: two organizations may each have a student
 *   alice@example.com. The sign-in identity stays global: among accounts that have a password
 *   (the only ones that can sign in) an e-mail is still unique, through a partial index.
 * - `users?status=` lists through its own (organization_id, status, created_at, id) index.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.addColumn('users', 'status', { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'active' });
	await qi.addColumn('users', 'external_id', { type: DataTypes.STRING(255), allowNull: true });
	await qi.addColumn('users', 'deactivated_at', { type: DataTypes.DATE, allowNull: true });
	await qi.addIndex('users', ['organization_id', 'external_id'], { unique: true, name: 'users_org_external_id_unique' });
	await qi.addIndex('users', ['organization_id', 'status', 'created_at', 'id'], { name: 'users_org_status_order' });

	await qi.addIndex('users', ['organization_id', 'email_lower'], { unique: true, name: 'users_org_email_lower_unique' });
	await qi.sequelize.query('CREATE UNIQUE INDEX users_sign_in_email_unique ON users (email_lower) WHERE password_hash IS NOT NULL');
	await qi.removeIndex('users', 'users_email_lower_unique');

	// user.updated's `data.previous_attributes` as JSON text; null for every other event.
	await qi.addColumn('events', 'previous_attributes', { type: DataTypes.TEXT, allowNull: true });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.removeColumn('events', 'previous_attributes');
	await qi.addIndex('users', ['email_lower'], { unique: true, name: 'users_email_lower_unique' });
	await qi.removeIndex('users', 'users_sign_in_email_unique');
	await qi.removeIndex('users', 'users_org_email_lower_unique');
	await qi.removeIndex('users', 'users_org_status_order');
	await qi.removeIndex('users', 'users_org_external_id_unique');
	await qi.removeColumn('users', 'deactivated_at');
	await qi.removeColumn('users', 'external_id');
	await qi.removeColumn('users', 'status');
}
