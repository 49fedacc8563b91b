import { csvLines } from './csv';
import type { OverdueMember } from './overdue-members';

/** The list's columns: who, what, since when. */
const CSV_COLUMNS = ['name', 'email', 'course', 'due_date', 'days_late', 'user_id', 'course_id', 'enrollment_id'] as const;

/**
 * Who in a group is overdue as CSV (Settings → Compliance), behind a UTF-8 byte-order mark:
 * Excel on Windows reads a file without one in the local code page and garbles every name that
 * is not plain ASCII ("Zoë", "Łukasz"); other programs skip the mark.
 */
export function overdueMembersCsv(rows: readonly OverdueMember[]): string {
	return `\uFEFF${csvLines(
		CSV_COLUMNS,
		rows.map((r) => [r.name, r.email, r.course_title, r.due_at.slice(0, 10), r.days_late, r.user_id, r.course_id, r.enrollment_id]),
	)}`;
}

/**
 * `overdue-<group>-<YYYY-MM-DD>.csv`: the group's name made safe for any file system (lower case,
 * letters and digits, words joined by `-`, at most 60 characters; `group` if nothing is left),
 * and the day (UTC) the list was read, so that files of several groups and days sort apart.
 */
export function overdueMembersFileName(groupName: string, at: Date): string {
	const slug =
		groupName
			.normalize('NFKD')
			.replace(/[\u0300-\u036f]/g, '')
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, '-')
			.replace(/^-+|-+$/g, '')
			.slice(0, 60)
			.replace(/-+$/, '') || 'group';
	return `overdue-${slug}-${at.toISOString().slice(0, 10)}.csv`;
}
