import type { RequestHandler } from 'express';

import { callerOf } from '../http/auth';
import { idParam, parseQuery } from '../http/validate';
import { courseCompletion } from './course-completion';
import { courseCompletionCsv } from './course-completion-csv';

/** The report's query (also its document's parameters). */
export const reportQuery = {
	course_id: idParam('course').description('Only this course (no row when it is not a published course of your organization).'),
	group_id: idParam('group').description("Count only this group's members' enrollments and certificates (as the group is now)."),
};

/**
 * GET /api/v1/reports/course_completion (SPEC §17): `{ data: [row per published course] }`, or
 * with `Accept: text/csv` the same as CSV (when the client prefers it to JSON). Strict query:
 * `course_id` and `group_id` only. Errors stay problem+json whatever was accepted.
 */
export const getCourseCompletion: RequestHandler = async (req, res) => {
	const { course_id, group_id } = parseQuery<{ course_id?: string; group_id?: string }>(reportQuery, req.query);
	const rows = await courseCompletion(callerOf(res).organization.id, course_id, new Date(), group_id);
	res.vary('Accept');
	if (req.accepts(['application/json', 'text/csv']) === 'text/csv') {
		res.type('text/csv; charset=utf-8');
		res.setHeader('Content-Disposition', 'attachment; filename="course_completion.csv"');
		res.send(courseCompletionCsv(rows));
		return;
	}
	res.json({ data: rows });
};
