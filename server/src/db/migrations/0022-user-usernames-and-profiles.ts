import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * What an identity provider writes reads back as written (SPEC §21):
 *
 * - `username` (SCIM's userName) apart from the e-mail. Existing users' usernames are their
 *   e-mails. Unique within an organization ignoring case, through `username_lower` (as e-mails
 *   are through email_lower): `userName eq` is one index read on any size of organization.
 * - `scim_names`: the name parts SCIM wrote (formatted, givenName, familyName, displayName) as
 *   JSON text, each kept as sent; null while SCIM never wrote them.
 * - The profile (the enterprise extension's title, department, employeeNumber, manager.value),
 *   each null until set; `users?department=` lists through (organization_id, department_lower, …).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.addColumn('users', 'username', { type: DataTypes.STRING(255), allowNull: true });
	await qi.addColumn('users', 'username_lower', { type: DataTypes.STRING(255), allowNull: true });
	await qi.addColumn('users', 'scim_names', { type: DataTypes.TEXT, allowNull: true });
	for (const column of ['title', 'department', 'department_lower', 'employee_number', 'manager_id']) {
		await qi.addColumn('users', column, { type: DataTypes.STRING(255), allowNull: true });
	}
	await qi.sequelize.query('UPDATE users SET username = email, username_lower = email_lower');
	await qi.addIndex('users', ['organization_id', 'username_lower'], { unique: true, name: 'users_org_username_lower_unique' });
	await qi.addIndex('users', ['organization_id', 'department_lower', 'created_at', 'id'], { name: 'users_org_department_order' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.removeIndex('users', 'users_org_department_order');
	await qi.removeIndex('users', 'users_org_username_lower_unique');
	// Plain ALTER TABLE: Sequelize's SQLite removeColumn rebuilds the table (see 0027).
	for (const column of ['manager_id', 'employee_number', 'department_lower', 'department', 'title', 'scim_names', 'username_lower', 'username']) {
		await qi.sequelize.query(`ALTER TABLE users DROP COLUMN ${column}`);
	}
}
