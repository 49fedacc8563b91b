import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * SCIM DELETE (SPEC §21): the user is deactivated and its SCIM resource is gone. `scim_deleted_at`
 * marks it; SCIM reads skip marked users, a reactivation clears the mark. The index lets a SCIM
 * list subtract an organization's marked users from its kept counter with one index read.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.addColumn('users', 'scim_deleted_at', { type: DataTypes.DATE, allowNull: true });
	await qi.addIndex('users', ['organization_id', 'scim_deleted_at'], { name: 'users_org_scim_deleted' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.removeIndex('users', 'users_org_scim_deleted');
	// Plain ALTER TABLE: Sequelize's SQLite removeColumn rebuilds the table, which loses its
	// expression indexes and trips over its unique constraints on the copy.
	await qi.sequelize.query('ALTER TABLE users DROP COLUMN scim_deleted_at');
}
