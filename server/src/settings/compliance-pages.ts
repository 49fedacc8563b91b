import { Router, type RequestHandler } from 'express';

import { courseCompletion, type CourseCompletionRow } from '../reports/course-completion';
import { courseCompletionCsv } from '../reports/course-completion-csv';
import { requireSignIn, viewerOf } from './viewer';
import type { Views } from './views';

const BASE = '/settings/compliance';

/** Admins and Super Admins; anyone else gets the same 404 as for a page that does not exist. */
function requireAdmin(views: Views): RequestHandler {
	return (req, res, next) => {
		const role = res.locals.viewer?.user.role;
		if (role === 'admin' || role === 'super_admin') return next();
		return views.render(req, res, 'not-found.njk', {}, 404);
	};
}

interface Filters {
	course: string;
	overdueOnly: boolean;
}

/** The page's filters from its query: a course id (anything else shows every course) and "only with overdue". */
function filtersOf(query: Record<string, unknown>): Filters {
	return {
		course: typeof query.course === 'string' ? query.course : '',
		overdueOnly: query.overdue === '1',
	};
}

function filtered(rows: CourseCompletionRow[], { course, overdueOnly }: Filters): CourseCompletionRow[] {
	return rows.filter((r) => (course === '' || r.course_id === course) && (!overdueOnly || r.overdue > 0));
}

/** The bar's segments as percentages of the enrolled (SVG widths: the page's CSP allows no inline style). */
function segments(r: CourseCompletionRow) {
	const pct = (n: number) => (r.enrolled === 0 ? 0 : Math.round((n / r.enrolled) * 1000) / 10);
	const completed = pct(r.completed);
	const inProgress = pct(r.active - r.overdue);
	const overdue = pct(r.overdue);
	return [
		{ kind: 'completed', x: 0, width: completed, label: 'completed', count: r.completed },
		{ kind: 'in-progress', x: completed, width: inProgress, label: 'in progress', count: r.active - r.overdue },
		{ kind: 'overdue', x: completed + inProgress, width: overdue, label: 'overdue', count: r.overdue },
	];
}

/**
 * Settings → Compliance (SPEC §17): the completion report (reports/course-completion.ts) as a
 * table with a bar per course (completed / in progress / overdue), filters, and the same CSV as
 * the API's for the auditor.
 */
export function compliancePages(views: Views): Router {
	const router = Router();
	router.use(BASE, requireSignIn, requireAdmin(views));

	router.get(BASE, async (req, res) => {
		const filters = filtersOf(req.query);
		const all = await courseCompletion(viewerOf(res).organization.id);
		const rows = filtered(all, filters);
		const query = new URLSearchParams({ ...(filters.course ? { course: filters.course } : {}), ...(filters.overdueOnly ? { overdue: '1' } : {}) }).toString();
		const totals = rows.reduce(
			(t, r) => ({ enrolled: t.enrolled + r.enrolled, completed: t.completed + r.completed, overdue: t.overdue + r.overdue }),
			{ enrolled: 0, completed: 0, overdue: 0 },
		);
		await views.render(req, res, 'compliance.njk', {
			courses: all.map((r) => ({ id: r.course_id, title: r.title })),
			filters,
			rows: rows.map((r) => ({ ...r, percent: Math.round(r.completion_rate * 1000) / 10, segments: segments(r) })),
			totals,
			csvHref: `${BASE}.csv${query ? `?${query}` : ''}`,
		});
	});

	router.get(`${BASE}.csv`, requireSignIn, requireAdmin(views), async (req, res) => {
		const rows = filtered(await courseCompletion(viewerOf(res).organization.id), filtersOf(req.query));
		res.type('text/csv; charset=utf-8');
		res.setHeader('Content-Disposition', 'attachment; filename="course_completion.csv"');
		res.send(courseCompletionCsv(rows));
	});

	return router;
}
