import Joi from 'joi';

import type { Caller } from '../api-keys/authenticate';
import { readCourseSummaries } from '../courses/queries';
import { counterFilter, type Counter } from '../db/list-counts';
import type { Table } from '../db/table';
import type { Where } from '../db/where';
import { listEndpoint, type ListDefinition } from '../http/list';
import { dateTimeParam, idParam } from '../http/validate';
import { personAndCourseSearchPage } from '../search/pages';
import { searchParam } from '../search/param';
import { referenceSearchCondition, type SearchReference } from '../search/words';
import { readUserSummaries } from '../users/queries';
import { ENROLLMENT_STATUSES } from './model';
import { ENROLLMENTS, enrollmentConditions, type EnrollmentRow } from './queries';
import { serializeEnrollment } from './serialize';

/**
 * What enrollments and certificates share for pickers: they are named by their student and
 * course, so a search looks at those (search/words.ts) and `expand` embeds them.
 */
export const STUDENT_AND_COURSE: SearchReference[] = [
	{ column: 'student_id', kind: 'user' },
	{ column: 'course_id', kind: 'course' },
];

/** Students' names and e-mails are roster data, which read:users gates (SPEC §5), whatever list they are reached through. */
const readsPeople = (caller: Caller) => caller.apiKey.scopeList.includes('read:users');

/**
 * What a search on enrollments or certificates matches: the student's name or e-mail and the
 * course's title, or, for a key without read:users, the course's title only (a match on a name
 * would tell who is called what).
 */
function searchedReferences(caller: Caller): SearchReference[] {
	return readsPeople(caller) ? STUDENT_AND_COURSE : STUDENT_AND_COURSE.filter((r) => r.kind !== 'user');
}

type Shared = { student_id: string; course_id: string; search: string };

/**
 * The list of records named by a student and a course (enrollments, certificates): `student_id`
 * and `course_id`, the list's own `filters` (added by `conditions`), then `search` (the student's
 * name or e-mail, the course's title) with its read for a search alone (search/pages.ts), and
 * `sort=-created_at` and `expand=student,course`, which a picker needs.
 */
export function studentAndCourseList<R extends { studentId: string; courseId: string }, F extends Shared>(
	table: Table<R>,
	list: Counter['list'],
	filters: Omit<{ [K in keyof F]-?: Joi.Schema }, keyof Shared>,
	conditions: (where: Where, filters: Partial<F>) => void,
): Omit<ListDefinition<R, F>, 'serialize' | 'counter'> {
	return {
		table,
		filters: {
			student_id: idParam('user').description('Only records of this student.'),
			course_id: idParam('course').description('Only records of this course.'),
			...filters,
			search: searchParam(),
		} as ListDefinition<R, F>['filters'],
		scopesItself: ({ search }) => search !== undefined,
		where: (where, given, organizationId, _params, caller) => {
			if (given.search !== undefined) referenceSearchCondition(where, table.name, searchedReferences(caller), organizationId, given.search);
			conditions(where, given);
		},
		// Without read:users the search looks at the course only (searchedReferences): the general read serves it.
		searchRead: (search, _others, organizationId, read, page, caller) =>
			readsPeople(caller) ? personAndCourseSearchPage(read, list, { person: 'student_id', course: 'course_id' }, organizationId, search, page) : Promise.resolve(undefined),
		sortable: true,
		expansions: {
			student: { idOf: (row) => row.studentId, read: readUserSummaries, shows: '{id, name, email}', scope: 'read:users' },
			course: { idOf: (row) => row.courseId, read: readCourseSummaries, shows: '{id, title}' },
		},
	};
}

type Filters = {
	student_id: string;
	course_id: string;
	status: string;
	due_before: string;
	due_after: string;
	overdue: 'true' | 'false';
	group_id: string;
	assignment_id: string;
	search: string;
};

/**
 * GET /api/v1/enrollments, filtered by `student_id`, `course_id`, `status`, the deadline
 * (enrollments/queries.ts) and `search` (the student's name or e-mail, the course's title);
 * `sort=-created_at` and `expand=student,course` are what a picker needs.
 */
export const listEnrollments = listEndpoint<EnrollmentRow, Filters>({
	...studentAndCourseList<EnrollmentRow, Filters>(
		ENROLLMENTS,
		'enrollments',
		{
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
			group_id: idParam('group').description("Only enrollments of the group's members (as they are now)."),
			assignment_id: idParam('assignment').description('Only enrollments this assignment made.'),
		},
		enrollmentConditions,
	),
	serialize: serializeEnrollment,
	// Deadlines move with time, so no counter holds them: those totals are counted through the due_at indexes.
	counter: ({ student_id, course_id, status, due_before, due_after, overdue, group_id, assignment_id, search }) =>
		[student_id, due_before, due_after, overdue, group_id, assignment_id, search].every((filter) => filter === undefined)
			? { list: 'enrollments', filter: counterFilter([['course', course_id], ['status', status]]) }
			: undefined,
});
