import Joi from 'joi';

import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { dateTimeParam, idParam } from '../http/validate';
import { ENROLLMENT_STATUSES } from './model';
import { ENROLLMENTS, enrollmentConditions, type EnrollmentRow } from './queries';
import { serializeEnrollment } from './serialize';

type Filters = { student_id: string; course_id: string; status: string; due_before: string; due_after: string; overdue: 'true' | 'false' };

/** GET /api/v1/enrollments, filtered by `student_id`, `course_id`, `status` and the deadline (enrollments/queries.ts). */
export const listEnrollments = listEndpoint<EnrollmentRow, Filters>({
	table: ENROLLMENTS,
	filters: {
		student_id: idParam('user'),
		course_id: idParam('course'),
		status: Joi.string().valid(...ENROLLMENT_STATUSES),
		due_before: dateTimeParam(),
		due_after: dateTimeParam(),
		overdue: Joi.string().valid('true', 'false'),
	},
	where: enrollmentConditions,
	serialize: serializeEnrollment,
	// Deadlines move with time, so no counter holds them: those totals are counted through the due_at indexes.
	counter: ({ student_id, course_id, status, due_before, due_after, overdue }) =>
		student_id === undefined && due_before === undefined && due_after === undefined && overdue === undefined
			? { list: 'enrollments', filter: counterFilter([['course', course_id], ['status', status]]) }
			: undefined,
});
