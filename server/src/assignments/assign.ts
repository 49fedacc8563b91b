import { isIdOf } from '../common/id-shapes';
import { newId } from '../common/ids';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { wakeApplier } from './apply';
import type { AssignmentRow, OnRemoval } from './queries';

export interface AssignmentInput {
	groupId: string;
	courseId: string;
	/** null or 1–3,650. */
	dueInDays: number | null;
	onRemoval: OnRemoval;
}

export const DUE_IN_DAYS_MAX = 3650;

/**
 * Assigns a published course to a group (SPEC §20). The row is all this writes: its members are
 * enrolled in the background, batch by batch (assignments/apply.ts), and `applied_at` is set when
 * every member is handled. One assignment per group and course: the unique index decides between
 * concurrent requests, and the other answers 409 naming it.
 */
export async function createAssignment(organizationId: string, input: AssignmentInput): Promise<AssignmentRow> {
	const { groupId, courseId, dueInDays, onRemoval } = input;
	if (dueInDays !== null && (!Number.isInteger(dueInDays) || dueInDays < 1 || dueInDays > DUE_IN_DAYS_MAX)) {
		throw new RuleError('invalid_due_in_days', `due_in_days must be a whole number of days from 1 to ${DUE_IN_DAYS_MAX}, or null for no deadline.`);
	}
	const db = database();
	const [group] = isIdOf('group', groupId) ? await db.rows<{ id: string }>('SELECT id FROM groups WHERE id = $1 AND organization_id = $2', [groupId, organizationId]) : [];
	if (!group) throw new RuleError('group_not_found', 'No group with this group_id exists in the organization.');
	const [course] = isIdOf('course', courseId) ? await db.rows<{ status: string }>('SELECT status FROM courses WHERE id = $1 AND organization_id = $2', [courseId, organizationId]) : [];
	if (!course) throw new RuleError('course_not_found', 'No course with this course_id exists in the organization.');
	if (course.status !== 'published') throw new RuleError('course_not_published', 'The course is a draft; it can be assigned once it is published.');
	const made = await writeTransaction(db, async (transaction) => {
		const id = newId('asg');
		await db.run(
			'INSERT INTO assignments (id, organization_id, group_id, course_id, due_in_days, on_removal, applied_through, applied_at, created_at) ' +
				`VALUES ($1, $2, $3, $4, $5, $6, NULL, NULL, ${db.storedTime('$7')}) ON CONFLICT DO NOTHING`,
			[id, organizationId, groupId, courseId, dueInDays, onRemoval, new Date().toISOString()],
			transaction,
		);
		const [row] = await db.rows<AssignmentRow>(
			`SELECT id, group_id AS "groupId", course_id AS "courseId", due_in_days AS "dueInDays", on_removal AS "onRemoval", NULL AS "appliedAt", ${db.isoText('created_at')} AS "createdAt" FROM assignments WHERE id = $1`,
			[id],
			transaction,
		);
		return row;
	});
	if (!made) {
		const [existing] = await db.rows<{ id: string }>('SELECT id FROM assignments WHERE group_id = $1 AND course_id = $2', [groupId, courseId]);
		throw new RuleError('assignment_exists', `The course is already assigned to this group (${existing?.id ?? 'just now'}).`, { assignmentId: existing?.id ?? '' });
	}
	wakeApplier();
	return made;
}
