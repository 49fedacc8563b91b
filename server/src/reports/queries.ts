import type { Database } from '../db';
import { overdueSql } from '../enrollments/overdue-rule';

/** The organization's published courses in report order; `$2`, when given, keeps one. */
export const COURSES = `SELECT id, title FROM courses WHERE organization_id = $1 AND status = 'published' ORDER BY created_at, id`;
export const ONE_COURSE = `SELECT id, title FROM courses WHERE organization_id = $1 AND status = 'published' AND id = $2`;

/** One row of REPORT_COUNTS: a counter (`list` enrollments or certificates, `filter` its key) or a live count per course. */
export interface ReportCount {
	list: 'enrollments' | 'certificates' | 'owed' | 'expired_this_month' | 'expiring';
	/** A counter's filter (`course=…`, `course=…&status=…`, `course=…&overdue=true`, `course=…&expires=YYYY-MM`), or a live count's course id. */
	filter: string;
	n: number | string;
}

/**
 * Everything the report counts, in one statement so that it is one snapshot (PostgreSQL): a
 * write committing between two reads could otherwise move an enrollment from the sweep's backlog
 * to the overdue counter and have it counted twice or not at all.
 * - the counters of 0009 and 0019 (list_counts), per course;
 * - `owed`: active, past due, not yet marked overdue (the sweep's backlog), from the partial index
 *   enrollments_overdue_owed_by_course;
 * - `expired_this_month`, `expiring`: certificates expiring from the month's start to now, and
 *   from now to 30 days ahead, from certificates_org_expiry.
 * $1: organization, $2: now, $3: 30 days from now, $4: the start of the month (UTC), ISO 8601.
 */
export function reportCounts(db: Database): string {
	const [now, soon, monthStart] = [db.storedTime('$2'), db.storedTime('$3'), db.storedTime('$4')];
	// SQLite's planner prefers (organization_id, status, due_at, course_id) here and then reads
	// every active past-due row's table row to test overdue_notified_at (900 ms with 125,000 of
	// them); the partial index holds the backlog only. PostgreSQL picks it by itself.
	const owedIndex = db.dialect === 'sqlite' ? ' INDEXED BY enrollments_overdue_owed_by_course' : '';
	return `SELECT list, filter, n FROM list_counts
		WHERE organization_id = $1 AND list IN ('enrollments', 'certificates') AND filter LIKE 'course=%'
	UNION ALL
	SELECT 'owed', course_id, count(*) FROM enrollments${owedIndex}
		WHERE organization_id = $1 AND ${overdueSql(now)} AND overdue_notified_at IS NULL
		GROUP BY course_id
	UNION ALL
	SELECT 'expired_this_month', course_id, count(*) FROM certificates
		WHERE organization_id = $1 AND expires_at >= ${monthStart} AND expires_at <= ${now} GROUP BY course_id
	UNION ALL
	SELECT 'expiring', course_id, count(*) FROM certificates
		WHERE organization_id = $1 AND expires_at > ${now} AND expires_at <= ${soon} GROUP BY course_id`;
}
