import { iso } from '../common/time';
import { isOverdue } from './overdue-rule';
import type { EnrollmentRow } from './queries';

export function serializeEnrollment(enrollment: EnrollmentRow) {
	return {
		id: enrollment.id,
		student_id: enrollment.studentId,
		course_id: enrollment.courseId,
		status: enrollment.status,
		progress_percent: enrollment.progressPercent,
		enrolled_at: iso(enrollment.enrolledAt),
		completed_at: iso(enrollment.completedAt),
		due_at: iso(enrollment.dueAt),
		overdue: isOverdue(enrollment),
		assignment_id: enrollment.assignmentId ?? null,
		created_at: iso(enrollment.createdAt),
		updated_at: iso(enrollment.updatedAt),
	};
}
