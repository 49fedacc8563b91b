import { listEndpoint } from '../http/list';
import { idParam } from '../http/validate';
import { ASSIGNMENTS, type AssignmentRow } from './queries';
import { serializeAssignment } from './serialize';

/** GET /api/v1/assignments, filtered by `group_id` and `course_id`. */
export const listAssignments = listEndpoint<AssignmentRow, { group_id: string; course_id: string }>({
	table: ASSIGNMENTS,
	filters: {
		group_id: idParam('group').description('Only assignments of this group.'),
		course_id: idParam('course').description('Only assignments of this course.'),
	},
	where: (where, { group_id, course_id }) => {
		where.equals('group_id', group_id).equals('course_id', course_id);
	},
	serialize: serializeAssignment,
});
