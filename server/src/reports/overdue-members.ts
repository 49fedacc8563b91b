import { DAY_MS } from '../common/time';
import { database, type Database } from '../db';
import { overdueSql } from '../enrollments/overdue-rule';

/** One overdue enrollment of a group's member, as Settings → Compliance lists it (SPEC §20). */
export interface OverdueMember {
	user_id: string;
	name: string;
	email: string;
	enrollment_id: string;
	course_id: string;
	course_title: string;
	/** ISO 8601. */
	due_at: string;
	/** Whole days since due_at (0 on the day it passed). */
	days_late: number;
}


/** $1 group, $2 organization, $3 now; the page: $4 how many, $5 how many skipped. Oldest deadline first. */
const OVERDUE_OF_MEMBERS = (db: Database, what: 'page' | 'count') => {
	const from =
		'FROM group_members m JOIN enrollments e ON e.student_id = m.user_id ' +
		`WHERE m.group_id = $1 AND e.organization_id = $2 AND ${overdueSql(db.storedTime('$3'), 'e')}`;
	return what === 'count'
		? `SELECT count(*) AS n ${from}`
		: `SELECT u.id AS user_id, u.name, u.email, e.id AS enrollment_id, k.id AS course_id, k.title AS course_title, ${db.isoText('e.due_at')} AS due_at ` +
				`${from.replace('WHERE', 'JOIN users u ON u.id = e.student_id JOIN courses k ON k.id = e.course_id WHERE')} ORDER BY e.due_at, e.id LIMIT $4 OFFSET $5`;
};

/**
 * Who in a group is overdue (SPEC §20, Settings → Compliance): each active enrollment of a member
 * whose deadline has passed, with the person, the course, the due date and the days late,
 * oldest deadline first, a page at a time with the total. A group of another organization
 * lists nobody.
 */
export async function overdueMembers(
	organizationId: string,
	groupId: string,
	{ page, perPage }: { page: number; perPage: number },
	now = new Date(),
): Promise<{ rows: OverdueMember[]; total: number }> {
	const db = database();
	const params = [groupId, organizationId, now.toISOString()];
	const [rows, [count]] = await Promise.all([
		db.read<Omit<OverdueMember, 'days_late'>>(OVERDUE_OF_MEMBERS(db, 'page'), [...params, perPage, (page - 1) * perPage]),
		db.read<{ n: number | string }>(OVERDUE_OF_MEMBERS(db, 'count'), params),
	]);
	return {
		rows: rows.map((row) => ({ ...row, days_late: Math.floor((now.getTime() - Date.parse(row.due_at)) / DAY_MS) })),
		total: Number(count.n),
	};
}
