import { database, type Database } from '../db';

/**
 * SPEC §17's completion report: one row per published course of an organization. Nothing here
 * reads enrollment rows one by one, so it answers alike for 100 enrollments or 1,000,000:
 * - enrolled and the four statuses come from the list counters (0009 migration's list_counts,
 *   kept by triggers in every writing transaction): `course=…` and `course=…&status=…`;
 * - overdue (active and past due) is counted per course in the (organization_id, status, due_at,
 *   course_id) index; certificates in total from the counters, and expired or expiring within 30
 *   days in the (organization_id, expires_at, course_id) index. Those two move with the clock, so
 *   no counter can hold them; the index ranges hold only the rows counted.
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

const DAY_MS = 86_400_000;

const COURSES = `SELECT id, title FROM courses WHERE organization_id = $1 AND status = 'published' ORDER BY created_at, id`;
const ONE_COURSE = `SELECT id, title FROM courses WHERE organization_id = $1 AND status = 'published' AND id = $2`;
const COUNTERS = `SELECT list, filter, n FROM list_counts WHERE organization_id = $1 AND list IN ('enrollments', 'certificates') AND filter LIKE 'course=%'`;
/** $2: now (ISO 8601). */
const OVERDUE = (db: Database) =>
	`SELECT course_id, count(*) AS n FROM enrollments WHERE organization_id = $1 AND status = 'active' AND due_at <= ${db.storedTime('$2')} GROUP BY course_id`;
/** $2: now, $3: 30 days from now (ISO 8601). */
const CERTIFICATES_ENDING = (db: Database) => {
	const [now, soon] = [db.storedTime('$2'), db.storedTime('$3')];
	return `SELECT course_id, sum(CASE WHEN expires_at <= ${now} THEN 1 ELSE 0 END) AS expired, sum(CASE WHEN expires_at > ${now} THEN 1 ELSE 0 END) AS expiring
	 FROM certificates WHERE organization_id = $1 AND expires_at <= ${soon} GROUP BY course_id`;
};

type Counts = Map<string, number>;

function byCourse(rows: Array<{ course_id: string; n: number | string }>): Counts {
	return new Map(rows.map((r) => [r.course_id, Number(r.n)]));
}

/** The report's rows, in course order (created_at, id); `courseId` keeps only that course (none if it is not a published course of the organization). */
export async function courseCompletion(organizationId: string, courseId?: string, now = new Date()): Promise<CourseCompletionRow[]> {
	const db = database();
	const [courses, counters, overdueRows, ending] = await Promise.all([
		courseId === undefined
			? db.rows<{ id: string; title: string }>(COURSES, [organizationId])
			: db.rows<{ id: string; title: string }>(ONE_COURSE, [organizationId, courseId]),
		db.rows<{ list: string; filter: string; n: number | string }>(COUNTERS, [organizationId]),
		db.rows<{ course_id: string; n: number | string }>(OVERDUE(db), [organizationId, now.toISOString()]),
		db.rows<{ course_id: string; expired: number | string; expiring: number | string }>(CERTIFICATES_ENDING(db), [
			organizationId,
			now.toISOString(),
			new Date(now.getTime() + 30 * DAY_MS).toISOString(),
		]),
	]);
	const counter = new Map(counters.map((r) => [`${r.list}:${r.filter}`, Number(r.n)]));
	const count = (list: string, filter: string) => counter.get(`${list}:${filter}`) ?? 0;
	const overdue = byCourse(overdueRows);
	const certificatesEnding = new Map(ending.map((r) => [r.course_id, { expired: Number(r.expired), expiring: Number(r.expiring) }]));
	return courses.map(({ id, title }) => {
		const status = (s: string) => count('enrollments', `course=${id}&status=${s}`);
		const enrolled = count('enrollments', `course=${id}`);
		const completed = status('completed');
		const certificates = count('certificates', `course=${id}`);
		const { expired = 0, expiring = 0 } = certificatesEnding.get(id) ?? {};
		return {
			course_id: id,
			title,
			enrolled,
			active: status('active'),
			completed,
			withdrawn: status('withdrawn'),
			expired: status('expired'),
			overdue: overdue.get(id) ?? 0,
			completion_rate: enrolled === 0 ? 0 : Math.round((completed / enrolled) * 10_000) / 10_000,
			certificates: { valid: certificates - expired, expiring_30d: expiring, expired },
		};
	});
}
