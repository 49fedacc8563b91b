import { csvLines } from './csv';
import { withByteOrderMark } from './download-file';
import type { OverdueMember } from './overdue-members';

/** The list's columns: who, what, since when. */
const CSV_COLUMNS = ['name', 'email', 'course', 'due_date', 'days_late', 'user_id', 'course_id', 'enrollment_id'] as const;

/** Who in a group is overdue as CSV (Settings → Compliance), with the byte-order mark a spreadsheet needs. */
export function overdueMembersCsv(rows: readonly OverdueMember[]): string {
	return withByteOrderMark(
		csvLines(
			CSV_COLUMNS,
			rows.map((r) => [r.name, r.email, r.course_title, r.due_at.slice(0, 10), r.days_late, r.user_id, r.course_id, r.enrollment_id]),
		),
	);
}
