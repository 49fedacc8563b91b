import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Groups and assignments (SPEC §20): training follows the team.
 *
 * - `groups`: a name unique in the organization in any case (a unique index on `name_lower`, the
 *   lower-cased twin the domain writes, as users' `email_lower`), an `external_id` unique in the
 *   organization (NULLs are distinct on both dialects), and `member_count`, kept by the writes
 *   that add and remove members in their own transaction.
 * - `group_members`: one row per (group, user), the primary key, so two requests adding the same
 *   member insert it once; `(user_id, group_id)` answers `groups?member=` and a user's groups.
 * - `assignments`: one per (group, course). `applied_through` is the cursor of the background
 *   application: the last member (by user id) handled, advanced in the transaction that enrolls
 *   the batch, so a restart resumes where the last commit left off; `applied_at` is set when
 *   every member at creation is handled. The partial index holds only assignments still being
 *   applied, so the periodic pass reads nothing when there are none.
 * - `enrollments.assignment_id`: the assignment that made the enrollment, null for a direct one.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.sequelize.transaction(async (transaction) => {
		const id = { type: DataTypes.STRING(40), allowNull: false };
		await qi.createTable(
			'groups',
			{
				id: { ...id, primaryKey: true },
				organization_id: { ...id, references: { model: 'organizations', key: 'id' } },
				name: { type: DataTypes.STRING(200), allowNull: false },
				name_lower: { type: DataTypes.STRING(200), allowNull: false },
				description: { type: DataTypes.STRING(1000), allowNull: true },
				external_id: { type: DataTypes.STRING(255), allowNull: true },
				member_count: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
				created_at: { type: DataTypes.DATE, allowNull: false },
				updated_at: { type: DataTypes.DATE, allowNull: false },
			},
			{ transaction },
		);
		await qi.addIndex('groups', ['organization_id', 'name_lower'], { unique: true, name: 'groups_org_name_unique', transaction });
		await qi.addIndex('groups', ['organization_id', 'external_id'], { unique: true, name: 'groups_org_external_id_unique', transaction });
		await qi.addIndex('groups', ['organization_id', 'created_at', 'id'], { name: 'groups_org_order', transaction });

		await qi.createTable(
			'group_members',
			{
				group_id: { ...id, primaryKey: true, references: { model: 'groups', key: 'id' }, onDelete: 'CASCADE' },
				user_id: { ...id, primaryKey: true, references: { model: 'users', key: 'id' } },
				organization_id: id,
				created_at: { type: DataTypes.DATE, allowNull: false },
			},
			{ transaction },
		);
		await qi.addIndex('group_members', ['user_id', 'group_id'], { name: 'group_members_user', transaction });

		await qi.createTable(
			'assignments',
			{
				id: { ...id, primaryKey: true },
				organization_id: id,
				group_id: { ...id, references: { model: 'groups', key: 'id' } },
				course_id: { ...id, references: { model: 'courses', key: 'id' } },
				due_in_days: { type: DataTypes.INTEGER, allowNull: true },
				on_removal: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'keep' },
				applied_through: { type: DataTypes.STRING(40), allowNull: true },
				applied_at: { type: DataTypes.DATE, allowNull: true },
				created_at: { type: DataTypes.DATE, allowNull: false },
			},
			{ transaction },
		);
		await qi.addIndex('assignments', ['group_id', 'course_id'], { unique: true, name: 'assignments_group_course_unique', transaction });
		await qi.addIndex('assignments', ['organization_id', 'created_at', 'id'], { name: 'assignments_org_order', transaction });
		await qi.sequelize.query('CREATE INDEX assignments_unapplied ON assignments (created_at) WHERE applied_at IS NULL', { transaction });

		await qi.addColumn('enrollments', 'assignment_id', { type: DataTypes.STRING(40), allowNull: true }, { transaction });
		await qi.sequelize.query('CREATE INDEX enrollments_assignment ON enrollments (assignment_id, student_id) WHERE assignment_id IS NOT NULL', { transaction });
	});
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.sequelize.transaction(async (transaction) => {
		await qi.sequelize.query('DROP INDEX enrollments_assignment', { transaction });
		// Plain ALTER TABLE on both: Sequelize's SQLite removeColumn rebuilds the table and drops its triggers.
		await qi.sequelize.query('ALTER TABLE enrollments DROP COLUMN assignment_id', { transaction });
		await qi.dropTable('assignments', { transaction });
		await qi.dropTable('group_members', { transaction });
		await qi.dropTable('groups', { transaction });
	});
}
