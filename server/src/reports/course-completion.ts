import { DAY_MS } from '../common/time';
import { database } from '../db';
import { groupCounts } from './group-completion';
import { COURSES, ONE_COURSE, reportCounts, type ReportCount } from './queries';

/**
 * SPEC §17's completion report: one row per published course of an organization. Nothing here
 * reads enrollment rows one by one, so it answers alike for 100 enrollments or 1,000,000. All its
 * numbers come from counters the database's triggers keep in every writing transaction
 * (list_counts, migrations 0009 and 0019), plus the little the clock has moved since the last
 * write (reports/queries.ts):
 * - enrolled and the four statuses: `course=…` and `course=…&status=…`;
 * - overdue (active and past due): the enrollments marked overdue (`course=…&overdue=true`) plus
 *   the sweep's backlog, past due and not yet marked (normally under a minute's worth);
 * - certificates: the total (`course=…`); expired = those of the months before this one
 *   (`course=…&expires=YYYY-MM`) + this month's up to now; expiring within 30 days from the range.
 */

export interface CourseCompletionRow {
	course_id: string;
	title: string;
	enrolled: number;
	active: number;
	completed: number;
	withdrawn: number;
	expired: number;
	overdue: number;
	/** completed ÷ enrolled, 0 when nobody is enrolled; 4 decimals. */
	completion_rate: number;
	certificates: { valid: number; expiring_30d: number; expired: number };
}


/** The first instant of `now`'s month, UTC. */
function monthStart(now: Date): Date {
	return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/**
 * The report's rows, in course order (created_at, id); `courseId` keeps only that course (none if
 * it is not a published course of the organization); `groupId` counts only that group's members'
 * enrollments and certificates (reports/group-completion.ts).
 */
export async function courseCompletion(organizationId: string, courseId?: string, now = new Date(), groupId?: string): Promise<CourseCompletionRow[]> {
	const db = database();
	const [courses, counts] = await Promise.all([
		courseId === undefined
			? db.read<{ id: string; title: string }>(COURSES, [organizationId])
			: db.read<{ id: string; title: string }>(ONE_COURSE, [organizationId, courseId]),
		groupId !== undefined ? [] : db.read<ReportCount>(reportCounts(db), [
			organizationId,
			now.toISOString(),
			new Date(now.getTime() + 30 * DAY_MS).toISOString(),
			monthStart(now).toISOString(),
		]),
	]);
	const thisMonth = now.toISOString().slice(0, 7);
	const counter = groupId === undefined ? new Map<string, number>() : await groupCounts(organizationId, groupId, now, new Date(now.getTime() + 30 * DAY_MS));
	const add = (key: string, n: number) => counter.set(key, (counter.get(key) ?? 0) + n);
	for (const { list, filter, n } of counts) {
		const expiry = list === 'certificates' ? /^course=(.+)&expires=(\d{4}-\d{2})$/.exec(filter) : null;
		if (expiry !== null) {
			// A month before this one has expired whole; this month's are counted up to now, later ones not yet.
			if (expiry[2] < thisMonth) add(`expired:${expiry[1]}`, Number(n));
		} else if (list === 'owed') add(`enrollments:course=${filter}&overdue=true`, Number(n));
		else if (list === 'expired_this_month') add(`expired:${filter}`, Number(n));
		else add(`${list}:${filter}`, Number(n));
	}
	const count = (key: string) => counter.get(key) ?? 0;
	return courses.map(({ id, title }) => {
		const status = (s: string) => count(`enrollments:course=${id}&status=${s}`);
		const enrolled = count(`enrollments:course=${id}`);
		const completed = status('completed');
		const certificates = count(`certificates:course=${id}`);
		const expired = count(`expired:${id}`);
		return {
			course_id: id,
			title,
			enrolled,
			active: status('active'),
			completed,
			withdrawn: status('withdrawn'),
			expired: status('expired'),
			overdue: count(`enrollments:course=${id}&overdue=true`),
			completion_rate: enrolled === 0 ? 0 : Math.round((completed / enrolled) * 10_000) / 10_000,
			certificates: { valid: certificates - expired, expiring_30d: count(`expiring:${id}`), expired },
		};
	});
}
