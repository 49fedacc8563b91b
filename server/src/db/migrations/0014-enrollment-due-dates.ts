import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Enrollment due dates (SPEC §17).
 *
 * - `due_at`: when the enrollment must be completed (null: no deadline).
 * - `overdue_notified_at`: when `enrollment.overdue` was recorded for the current deadline; null
 *   while it is still owed. It is written in the transaction that records the event, so "once
 *   per enrollment" is a fact of the database, whatever process (or how many) sweeps. Moving
 *   `due_at` to the future (or clearing it) sets it back to null: the deadline is armed again.
 *
 * Indexes: the list filters (`due_before`, `due_after`; `overdue` is status + due_at), and the
 * sweep's own partial index, which holds only the deadlines still owed an event, so a pass
 * reads the few rows whose deadline has passed and nothing else, however many enrollments exist.
 * The completion report (reports/course-completion.ts) counts overdue enrollments per course from
 * (organization_id, status, due_at, course_id) and expired or expiring certificates from
 * (organization_id, expires_at, course_id), both without reading a table row.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.sequelize.transaction(async (transaction) => {
		await qi.addColumn('enrollments', 'due_at', { type: DataTypes.DATE, allowNull: true }, { transaction });
		await qi.addColumn('enrollments', 'overdue_notified_at', { type: DataTypes.DATE, allowNull: true }, { transaction });
		await qi.addIndex('enrollments', ['organization_id', 'due_at'], { name: 'enrollments_org_due', transaction });
		await qi.addIndex('enrollments', ['organization_id', 'status', 'due_at', 'course_id'], { name: 'enrollments_org_status_due', transaction });
		await qi.addIndex('certificates', ['organization_id', 'expires_at', 'course_id'], { name: 'certificates_org_expiry', transaction });
		await qi.sequelize.query(
			`CREATE INDEX enrollments_overdue_owed ON enrollments (due_at)
			 WHERE status = 'active' AND due_at IS NOT NULL AND overdue_notified_at IS NULL`,
			{ transaction },
		);
	});
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.sequelize.transaction(async (transaction) => {
		await qi.sequelize.query('DROP INDEX enrollments_overdue_owed', { transaction });
		await qi.removeIndex('certificates', 'certificates_org_expiry', { transaction });
		await qi.removeIndex('enrollments', 'enrollments_org_status_due', { transaction });
		await qi.removeIndex('enrollments', 'enrollments_org_due', { transaction });
		// Plain ALTER TABLE on both: Sequelize's SQLite removeColumn rebuilds the table and drops its triggers.
		await qi.sequelize.query('ALTER TABLE enrollments DROP COLUMN overdue_notified_at', { transaction });
		await qi.sequelize.query('ALTER TABLE enrollments DROP COLUMN due_at', { transaction });
	});
}
