import { Router, type RequestHandler } from 'express';

import { groupsOf } from '../groups/read';
import type { GroupRow } from '../groups/queries';
import { courseCompletion, type CourseCompletionRow } from '../reports/course-completion';
import { courseCompletionCsv } from '../reports/course-completion-csv';
import { overdueMembers, type OverdueMember } from '../reports/overdue-members';
import { attachment, csvFileName, withByteOrderMark } from '../reports/download-file';
import { overdueMembersCsv } from '../reports/overdue-members-csv';
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
	/** The group whose overdue members are listed, or '' for none. */
	group: string;
	/** The page of that list, from 1. */
	page: number;
}

/** The overdue list's page size. */
const PER_PAGE = 50;
/** The groups the picker offers, by name (far more than an organization names by hand). */
const MAX_GROUPS = 1_000;

/** The page's filters from its query: a course id (anything else shows every course), "only with overdue", a group and its page. */
function filtersOf(query: Record<string, unknown>): Filters {
	const page = typeof query.page === 'string' && /^[1-9]\d{0,6}$/.test(query.page) ? Number(query.page) : 1;
	return {
		course: typeof query.course === 'string' ? query.course : '',
		overdueOnly: query.overdue === '1',
		group: typeof query.group === 'string' ? query.group : '',
		page,
	};
}

/** The page's address with these filters (only those set). */
function hrefOf(path: string, filters: Filters, changes: Partial<Filters> = {}): string {
	const f = { ...filters, ...changes };
	const query = new URLSearchParams({
		...(f.course ? { course: f.course } : {}),
		...(f.overdueOnly ? { overdue: '1' } : {}),
		...(f.group ? { group: f.group } : {}),
		...(f.group && f.page > 1 ? { page: String(f.page) } : {}),
	}).toString();
	return `${path}${query ? `?${query}` : ''}`;
}

/**
 * Who in the chosen group is overdue (SPEC §20), a page of it with links to the others, or
 * undefined when no group of the organization is chosen.
 */
async function overdueList(organizationId: string, groups: GroupRow[], filters: Filters) {
	const group = groups.find((g) => g.id === filters.group);
	if (!group) return undefined;
	const { rows, total } = await overdueMembers(organizationId, group.id, { page: filters.page, perPage: PER_PAGE });
	const last = Math.max(1, Math.ceil(total / PER_PAGE));
	return {
		group,
		rows,
		total,
		page: filters.page,
		last,
		from: total === 0 ? 0 : Math.min(total, (filters.page - 1) * PER_PAGE + 1),
		to: Math.min(total, filters.page * PER_PAGE),
		prevHref: filters.page > 1 ? `${hrefOf(BASE, filters, { page: Math.min(filters.page - 1, last) })}#overdue-list` : null,
		nextHref: filters.page < last ? `${hrefOf(BASE, filters, { page: filters.page + 1 })}#overdue-list` : null,
		csvHref: `${BASE}/overdue.csv?${new URLSearchParams({ group: group.id }).toString()}`,
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
 * Settings → Compliance (SPEC §17, §20): the completion report (reports/course-completion.ts) as
 * a table with a bar per course (completed / in progress / overdue), filters, and the same CSV as
 * the API's for the auditor; and, for a group picked, who in it is overdue (name, e-mail, course,
 * due date, days late), paged, with that whole list as a CSV.
 */
export function compliancePages(views: Views): Router {
	const router = Router();
	router.use(BASE, requireSignIn, requireAdmin(views));

	router.get(BASE, async (req, res) => {
		const filters = filtersOf(req.query);
		const organizationId = viewerOf(res).organization.id;
		const [all, groups] = await Promise.all([courseCompletion(organizationId), groupsOf(organizationId, MAX_GROUPS)]);
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
			groups: groups.map((g) => ({ id: g.id, name: g.name })),
			overdue: await overdueList(organizationId, groups, filters),
		});
	});

	// Every overdue enrollment of the group's members, not one page: the auditor's file.
	router.get(`${BASE}/overdue.csv`, async (req, res) => {
		const organizationId = viewerOf(res).organization.id;
		const groupId = filtersOf(req.query).group;
		const group = (await groupsOf(organizationId, MAX_GROUPS)).find((g) => g.id === groupId);
		if (!group) return views.render(req, res, 'not-found.njk', {}, 404);
		const now = new Date();
		const rows: OverdueMember[] = [];
		for (let page = 1; ; page++) {
			const { rows: some } = await overdueMembers(organizationId, group.id, { page, perPage: 1_000 }, now);
			rows.push(...some);
			if (some.length < 1_000) break;
		}
		res.type('text/csv; charset=utf-8');
		res.setHeader('Content-Disposition', attachment(csvFileName('overdue', group.name, 'group', now)));
		res.send(overdueMembersCsv(rows));
	});

	// The API's CSV for the same filter behind a byte-order mark, named for the organization and
	// the day: the auditor opens it in a spreadsheet and keeps one a month.
	router.get(`${BASE}.csv`, requireSignIn, requireAdmin(views), async (req, res) => {
		const { organization } = viewerOf(res);
		const rows = filtered(await courseCompletion(organization.id), filtersOf(req.query));
		res.type('text/csv; charset=utf-8');
		res.setHeader('Content-Disposition', attachment(csvFileName('course-completion', organization.slug, 'organization', new Date())));
		res.send(withByteOrderMark(courseCompletionCsv(rows)));
	});

	return router;
}
