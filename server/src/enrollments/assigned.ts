import type { Transaction } from 'sequelize';

import { newId } from '../common/ids';
import { database, type Database } from '../db';
import { recordEvents } from '../events/record';
import { changeLocked } from './change';
import { Enrollment } from './model';
import type { EnrollmentRow } from './queries';
import { serializeEnrollment } from './serialize';

/** What an assignment (SPEC §20) enrolls its group's members in. */
export interface AssignedCourse {
	assignmentId: string;
	organizationId: string;
	courseId: string;
	/** The assignment's creation + due_in_days; null: no deadline. */
	dueAt: Date | null;
}

/**
 * The enrollments of a set of (user, assignment) pairs in one statement: only a user of the
 * organization who is an active student, only in a published course, and only where the user has
 * no enrollment in the course yet, in any status (ON CONFLICT on the (student, course) unique
 * index leaves an existing one, however it got there and whoever wrote it a moment ago). The
 * same rules as enrollStudent (enroll.ts), for many pairs at once: a group's join or a batch of
 * an assignment's members. On PostgreSQL each user's row is share-locked as enrollStudent does,
 * so a deactivation either commits first and is seen here, or waits and withdraws what this made.
 */
const ENROLL_PAIRS = (db: Database) => {
	const field = (name: string) => `c ->> '${name}'`;
	const now = db.storedTime('$2');
	const dueAt = db.dialect === 'postgres' ? `(${field('due_at')})::timestamptz` : db.storedTime(field('due_at'));
	// The pairs come first as a common table expression, which also tells Sequelize's SQLite
	// dialect that the statement returns rows (it runs a statement starting with INSERT without reading any).
	const pairs = db.dialect === 'postgres' ? 'SELECT value AS c FROM json_array_elements($1::json) AS value' : 'SELECT value AS c FROM json_each($1)';
	return (
		`WITH pairs AS (${pairs}) ` +
		'INSERT INTO enrollments (id, organization_id, student_id, course_id, status, progress_percent, enrolled_at, completed_at, due_at, assignment_id, created_at, updated_at) ' +
		`SELECT ${field('id')}, u.organization_id, u.id, k.id, 'active', 0, ${now}, NULL, ${dueAt}, ${field('assignment_id')}, ${now}, ${now} ` +
		`FROM pairs JOIN users u ON u.id = ${field('user_id')} AND u.organization_id = ${field('organization_id')} AND u.role = 'student' AND u.status = 'active' ` +
		`JOIN courses k ON k.id = ${field('course_id')} AND k.organization_id = u.organization_id AND k.status = 'published' ` +
		`WHERE TRUE${db.dialect === 'postgres' ? ' FOR SHARE OF u' : ''} ` +
		'ON CONFLICT (student_id, course_id) DO NOTHING ' +
		`RETURNING id, student_id AS "studentId", course_id AS "courseId", status, progress_percent AS "progressPercent", ${db.isoText('enrolled_at')} AS "enrolledAt", ` +
		`NULL AS "completedAt", ${db.isoText('due_at')} AS "dueAt", assignment_id AS "assignmentId", organization_id AS "organizationId", ` +
		`${db.isoText('created_at')} AS "createdAt", ${db.isoText('updated_at')} AS "updatedAt"`
	);
};

/**
 * Enrolls each user in each assigned course where the rules allow (ENROLL_PAIRS), inside the
 * caller's transaction (a join, an assignment's batch), with the `enrollment.created` of each
 * enrollment made, in one statement each. Returns how many were made. A deadline that has already
 * passed (a late join) is told by the overdue sweep within its period, as any passing deadline is.
 */
export async function enrollAssigned(transaction: Transaction, courses: readonly AssignedCourse[], userIds: readonly string[], now = new Date()): Promise<number> {
	if (courses.length === 0 || userIds.length === 0) return 0;
	const pairs = courses.flatMap((course) =>
		userIds.map((userId) => ({
			id: newId('enr'),
			user_id: userId,
			organization_id: course.organizationId,
			course_id: course.courseId,
			assignment_id: course.assignmentId,
			due_at: course.dueAt?.toISOString() ?? null,
		})),
	);
	const db = database();
	const made = await db.rows<EnrollmentRow & { organizationId: string }>(ENROLL_PAIRS(db), [JSON.stringify(pairs), now.toISOString()], transaction);
	await recordEvents(
		transaction,
		made.map(({ organizationId, ...enrollment }) => ({ organizationId, type: 'enrollment.created' as const, object: serializeEnrollment(enrollment), at: now })),
	);
	return made.length;
}

/**
 * Withdraws the active enrollments these assignments made for these users (a leave with
 * `on_removal: withdraw`, SPEC §20), inside the caller's transaction, each through the one
 * enrollment change with its `enrollment.withdrawn`. Completed, withdrawn and expired ones, and
 * those made directly, never change. `userIds` undefined: every user (the group is deleted).
 */
export async function withdrawAssigned(transaction: Transaction, assignmentIds: readonly string[], userIds: readonly string[] | undefined, now = new Date()): Promise<number> {
	if (assignmentIds.length === 0 || userIds?.length === 0) return 0;
	const active = await Enrollment.findAll({
		where: { assignmentId: [...assignmentIds], status: 'active', ...(userIds === undefined ? {} : { studentId: [...userIds] }) },
		order: [['id', 'ASC']],
		transaction,
		lock: transaction.LOCK.UPDATE,
	});
	for (const enrollment of active) await changeLocked(enrollment, { status: 'withdrawn' }, transaction, now);
	return active.length;
}
