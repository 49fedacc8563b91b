import { database, type Database } from '../db';
import { overdueSql } from '../enrollments/overdue-rule';

/**
 * The completion report's counts for one group's members (`group_id`, SPEC §20): read from the
 * members' enrollments and certificates themselves, per course, since the counters
 * (reports/queries.ts) count whole organizations. $1 group, $2 organization, $3 now, $4 now + 30 days.
 */
const ENROLLMENTS_OF_MEMBERS = (db: Database) => {
	const of = (status: string) => `sum(CASE WHEN e.status = '${status}' THEN 1 ELSE 0 END) AS ${status}`;
	return (
		`SELECT e.course_id, count(*) AS enrolled, ${['active', 'completed', 'withdrawn', 'expired'].map(of).join(', ')}, ` +
		`sum(CASE WHEN ${overdueSql(db.storedTime('$3'), 'e')} THEN 1 ELSE 0 END) AS overdue ` +
		'FROM group_members m JOIN enrollments e ON e.student_id = m.user_id WHERE m.group_id = $1 AND e.organization_id = $2 GROUP BY e.course_id'
	);
};

const CERTIFICATES_OF_MEMBERS = (db: Database) =>
	`SELECT c.course_id, count(*) AS total, sum(CASE WHEN c.expires_at <= ${db.storedTime('$3')} THEN 1 ELSE 0 END) AS expired, ` +
	`sum(CASE WHEN c.expires_at > ${db.storedTime('$3')} AND c.expires_at <= ${db.storedTime('$4')} THEN 1 ELSE 0 END) AS expiring ` +
	'FROM group_members m JOIN certificates c ON c.student_id = m.user_id WHERE m.group_id = $1 AND c.organization_id = $2 GROUP BY c.course_id';

type Count = number | string | null;

/** The same counter keys courseCompletion reads (`enrollments:course=…&status=…`, `certificates:course=…`, `expired:…`, `expiring:…`), for a group's members. */
export async function groupCounts(organizationId: string, groupId: string, now: Date, in30Days: Date): Promise<Map<string, number>> {
	const db = database();
	const params = [groupId, organizationId, now.toISOString(), in30Days.toISOString()];
	const [enrollments, certificates] = await Promise.all([
		db.read<{ course_id: string; enrolled: Count; active: Count; completed: Count; withdrawn: Count; expired: Count; overdue: Count }>(ENROLLMENTS_OF_MEMBERS(db), params.slice(0, 3)),
		db.read<{ course_id: string; total: Count; expired: Count; expiring: Count }>(CERTIFICATES_OF_MEMBERS(db), params),
	]);
	const counts = new Map<string, number>();
	for (const row of enrollments) {
		const course = `enrollments:course=${row.course_id}`;
		counts.set(course, Number(row.enrolled));
		for (const status of ['active', 'completed', 'withdrawn', 'expired'] as const) counts.set(`${course}&status=${status}`, Number(row[status] ?? 0));
		counts.set(`${course}&overdue=true`, Number(row.overdue ?? 0));
	}
	for (const row of certificates) {
		counts.set(`certificates:course=${row.course_id}`, Number(row.total));
		counts.set(`expired:${row.course_id}`, Number(row.expired ?? 0));
		counts.set(`expiring:${row.course_id}`, Number(row.expiring ?? 0));
	}
	return counts;
}
