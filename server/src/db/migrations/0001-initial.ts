import { DataTypes, type QueryInterface } from 'sequelize';

const id = { type: DataTypes.STRING(40), primaryKey: true, allowNull: false };
const ref = (table: string) => ({
	type: DataTypes.STRING(40),
	allowNull: false,
	references: { model: table, key: 'id' },
	onDelete: 'CASCADE',
});
const timestamps = {
	created_at: { type: DataTypes.DATE, allowNull: false },
	updated_at: { type: DataTypes.DATE, allowNull: false },
};

/**
 * The whole schema. Every list is ordered by (created_at, id) within an organization, so each
 * list and each filter has an index that starts with organization_id and ends with that order.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.createTable('organizations', {
		id,
		name: { type: DataTypes.STRING(200), allowNull: false },
		slug: { type: DataTypes.STRING(63), allowNull: false, unique: true },
		plan: { type: DataTypes.STRING(20), allowNull: false },
		...timestamps,
	});

	await qi.createTable('users', {
		id,
		organization_id: ref('organizations'),
		name: { type: DataTypes.STRING(200), allowNull: false },
		email: { type: DataTypes.STRING(254), allowNull: false },
		email_lower: { type: DataTypes.STRING(254), allowNull: false },
		role: { type: DataTypes.STRING(20), allowNull: false },
		password_hash: { type: DataTypes.STRING(200), allowNull: true },
		...timestamps,
	});
	await qi.addIndex('users', ['email_lower'], { unique: true, name: 'users_email_lower_unique' });
	await qi.addIndex('users', ['organization_id', 'created_at', 'id'], { name: 'users_org_order' });
	await qi.addIndex('users', ['organization_id', 'role', 'created_at', 'id'], { name: 'users_org_role_order' });

	await qi.createTable('courses', {
		id,
		organization_id: ref('organizations'),
		title: { type: DataTypes.STRING(200), allowNull: false },
		description: { type: DataTypes.TEXT, allowNull: false },
		status: { type: DataTypes.STRING(20), allowNull: false },
		published_at: { type: DataTypes.DATE, allowNull: true },
		...timestamps,
	});
	await qi.addIndex('courses', ['organization_id', 'status', 'created_at', 'id'], { name: 'courses_org_status_order' });

	await qi.createTable('enrollments', {
		id,
		organization_id: ref('organizations'),
		student_id: ref('users'),
		course_id: ref('courses'),
		status: { type: DataTypes.STRING(20), allowNull: false },
		progress_percent: { type: DataTypes.INTEGER, allowNull: false },
		enrolled_at: { type: DataTypes.DATE, allowNull: false },
		completed_at: { type: DataTypes.DATE, allowNull: true },
		...timestamps,
	});
	// One enrollment per student and course, enforced by the database so that concurrent
	// identical requests cannot both succeed, on any number of server instances.
	await qi.addIndex('enrollments', ['student_id', 'course_id'], { unique: true, name: 'enrollments_student_course_unique' });
	await qi.addIndex('enrollments', ['organization_id', 'created_at', 'id'], { name: 'enrollments_org_order' });
	await qi.addIndex('enrollments', ['organization_id', 'student_id', 'created_at', 'id'], { name: 'enrollments_org_student_order' });
	await qi.addIndex('enrollments', ['organization_id', 'course_id', 'created_at', 'id'], { name: 'enrollments_org_course_order' });
	await qi.addIndex('enrollments', ['organization_id', 'status', 'created_at', 'id'], { name: 'enrollments_org_status_order' });

	await qi.createTable('certificates', {
		id,
		organization_id: ref('organizations'),
		student_id: ref('users'),
		course_id: ref('courses'),
		enrollment_id: { ...ref('enrollments'), unique: true },
		issued_at: { type: DataTypes.DATE, allowNull: false },
		expires_at: { type: DataTypes.DATE, allowNull: true },
		verification_code: { type: DataTypes.STRING(20), allowNull: false, unique: true },
		...timestamps,
	});
	await qi.addIndex('certificates', ['organization_id', 'created_at', 'id'], { name: 'certificates_org_order' });
	await qi.addIndex('certificates', ['organization_id', 'student_id', 'created_at', 'id'], { name: 'certificates_org_student_order' });
	await qi.addIndex('certificates', ['organization_id', 'course_id', 'created_at', 'id'], { name: 'certificates_org_course_order' });

	await qi.createTable('api_keys', {
		id,
		organization_id: ref('organizations'),
		label: { type: DataTypes.STRING(100), allowNull: false },
		scopes: { type: DataTypes.STRING(200), allowNull: false },
		status: { type: DataTypes.STRING(20), allowNull: false },
		key_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
		masked: { type: DataTypes.STRING(20), allowNull: false },
		created_by: { type: DataTypes.STRING(40), allowNull: false },
		last_used_at: { type: DataTypes.DATE, allowNull: true },
		revoked_at: { type: DataTypes.DATE, allowNull: true },
		revoked_by: { type: DataTypes.STRING(40), allowNull: true },
		replaced_by: { type: DataTypes.STRING(40), allowNull: true },
		...timestamps,
	});
	await qi.addIndex('api_keys', ['organization_id', 'created_at', 'id'], { name: 'api_keys_org_order' });

	await qi.createTable('audit_events', {
		id,
		organization_id: ref('organizations'),
		action: { type: DataTypes.STRING(20), allowNull: false },
		api_key_id: { type: DataTypes.STRING(40), allowNull: false },
		actor: { type: DataTypes.STRING(40), allowNull: false },
		actor_name: { type: DataTypes.STRING(254), allowNull: false },
		ip: { type: DataTypes.STRING(64), allowNull: true },
		user_agent: { type: DataTypes.STRING(300), allowNull: true },
		created_at: { type: DataTypes.DATE, allowNull: false },
	});
	await qi.addIndex('audit_events', ['organization_id', 'created_at'], { name: 'audit_events_org_order' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	for (const table of ['audit_events', 'api_keys', 'certificates', 'enrollments', 'courses', 'users', 'organizations']) {
		await qi.dropTable(table);
	}
}
