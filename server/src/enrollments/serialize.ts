import { iso } from '../common/time';
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
		created_at: iso(enrollment.createdAt),
		updated_at: iso(enrollment.updatedAt),
	};
}
