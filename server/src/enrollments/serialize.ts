import { iso } from '../common/time';
import type { Enrollment } from './model';

export function serializeEnrollment(enrollment: Enrollment) {
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
