import Joi from 'joi';

import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { idParam } from '../http/validate';
import { ENROLLMENT_STATUSES } from './model';
import { ENROLLMENTS, enrollmentConditions, type EnrollmentRow } from './queries';
import { serializeEnrollment } from './serialize';

/** GET /api/v1/enrollments, filtered by `student_id`, `course_id` and `status`. */
export const listEnrollments = listEndpoint<EnrollmentRow, { student_id: string; course_id: string; status: string }>({
	table: ENROLLMENTS,
	filters: {
		student_id: idParam('user'),
		course_id: idParam('course'),
		status: Joi.string().valid(...ENROLLMENT_STATUSES),
	},
	where: enrollmentConditions,
	serialize: serializeEnrollment,
	counter: ({ student_id, course_id, status }) =>
		student_id === undefined
			? { list: 'enrollments', filter: counterFilter([['course', course_id], ['status', status]]) }
			: undefined,
});
