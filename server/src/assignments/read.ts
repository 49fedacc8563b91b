import { database } from '../db';
import type { AssignmentRow } from './queries';

/** An organization's assignments, oldest first, of one group if given (the CLI's `assignments list`). */
export async function assignmentsOf(organizationId: string, groupId: string | undefined, limit: number): Promise<AssignmentRow[]> {
	const db = database();
	return db.rows<AssignmentRow>(
		`SELECT id, group_id AS "groupId", course_id AS "courseId", due_in_days AS "dueInDays", on_removal AS "onRemoval", ${db.isoText('applied_at')} AS "appliedAt", ${db.isoText('created_at')} AS "createdAt" ` +
			`FROM assignments WHERE organization_id = $1${groupId === undefined ? '' : ' AND group_id = $3'} ORDER BY created_at, id LIMIT $2`,
		groupId === undefined ? [organizationId, limit] : [organizationId, limit, groupId],
	);
}
