import Joi from 'joi';

import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { dateTimeParam, idParam } from '../http/validate';
import { personAndCourseSearchPage } from '../search/pages';
import { searchParam } from '../search/param';
import { referenceSearchCondition } from '../search/words';
import { ENROLLMENT_STATUSES } from './model';
import { STUDENT_AND_COURSE, STUDENT_AND_COURSE_COLUMNS, studentAndCourseExpansions } from './names';
import { ENROLLMENTS, enrollmentConditions, type EnrollmentRow } from './queries';
import { serializeEnrollment } from './serialize';

type Filters = {
	student_id: string;
	course_id: string;
	status: string;
	due_before: string;
	due_after: string;
	overdue: 'true' | 'false';
	search: string;
};

/**
 * GET /api/v1/enrollments, filtered by `student_id`, `course_id`, `status`, the deadline
 * (enrollments/queries.ts) and `search` (the student's name or e-mail, the course's title);
 * `sort=-created_at` and `expand=student,course` are what a picker needs.
 */
export const listEnrollments = listEndpoint<EnrollmentRow, Filters>({
	table: ENROLLMENTS,
	filters: {
		student_id: idParam('user').description('Only records of this student.'),
		course_id: idParam('course').description('Only records of this course.'),
		status: Joi.string()
			.valid(...ENROLLMENT_STATUSES)
			.description('Only enrollments in this status.'),
		due_before: dateTimeParam().description(
			'ISO 8601 date-time with an offset. Only enrollments whose due_at is strictly before it; enrollments without a deadline are never included.',
		),
		due_after: dateTimeParam().description(
			'ISO 8601 date-time with an offset. Only enrollments whose due_at is strictly after it; enrollments without a deadline are never included.',
		),
		overdue: Joi.string().valid('true', 'false').description('`true`: only active enrollments whose due_at has passed; `false`: all others.'),
		search: searchParam(),
	},
	scopesItself: ({ search }) => search !== undefined,
	where: (where, filters, organizationId) => {
		if (filters.search !== undefined) referenceSearchCondition(where, ENROLLMENTS.name, STUDENT_AND_COURSE, organizationId, filters.search);
		enrollmentConditions(where, filters);
	},
	// A search alone: totals from an index and the courses' counters, the page from each side's first rows (search/pages.ts).
	searchRead: (search, _others, organizationId, table, page) => personAndCourseSearchPage(table, 'enrollments', STUDENT_AND_COURSE_COLUMNS, organizationId, search, page),
	sortable: true,
	expansions: studentAndCourseExpansions(),
	serialize: serializeEnrollment,
	// Deadlines move with time, so no counter holds them: those totals are counted through the due_at indexes.
	counter: ({ student_id, course_id, status, due_before, due_after, overdue, search }) =>
		student_id === undefined && due_before === undefined && due_after === undefined && overdue === undefined && search === undefined
			? { list: 'enrollments', filter: counterFilter([['course', course_id], ['status', status]]) }
			: undefined,
});
