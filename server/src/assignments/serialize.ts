import { iso } from '../common/time';
import type { AssignmentRow } from './queries';

/** An assignment as the API shows it (SPEC §20). */
export function serializeAssignment(assignment: AssignmentRow) {
	return {
		id: assignment.id,
		group_id: assignment.groupId,
		course_id: assignment.courseId,
		due_in_days: assignment.dueInDays === null ? null : Number(assignment.dueInDays),
		on_removal: assignment.onRemoval,
		applied_at: iso(assignment.appliedAt),
		created_at: iso(assignment.createdAt),
	};
}
