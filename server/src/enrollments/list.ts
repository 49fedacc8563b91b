import Joi from 'joi';

import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { idParam } from '../http/validate';
import { ENROLLMENT_STATUSES, Enrollment } from './model';
import { serializeEnrollment } from './serialize';

/** GET /api/v1/enrollments, filtered by `student_id`, `course_id` and `status`. */
export const listEnrollments = listEndpoint<Enrollment, { student_id: string; course_id: string; status: string }>({
	model: Enrollment,
	filters: {
		student_id: idParam('user'),
		course_id: idParam('course'),
		status: Joi.string().valid(...ENROLLMENT_STATUSES),
	},
	where: (organizationId, { student_id, course_id, status }) => ({
		organizationId,
		...(student_id !== undefined ? { studentId: student_id } : {}),
		...(course_id !== undefined ? { courseId: course_id } : {}),
		...(status !== undefined ? { status } : {}),
	}),
	serialize: serializeEnrollment,
	counter: ({ student_id, course_id, status }) =>
		student_id === undefined
			? { list: 'enrollments', filter: counterFilter([['course', course_id], ['status', status]]) }
			: undefined,
});
