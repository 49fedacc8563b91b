import type { CourseCompletionRow } from './course-completion';
import { csvLines } from './csv';

/** The CSV's columns, the JSON's fields in order with the certificate counts flattened. */
const CSV_COLUMNS = [
	'course_id',
	'title',
	'enrolled',
	'active',
	'completed',
	'withdrawn',
	'expired',
	'overdue',
	'completion_rate',
	'certificates_valid',
	'certificates_expiring_30d',
	'certificates_expired',
] as const;

function csvRow(r: CourseCompletionRow): Array<string | number> {
	return [
		r.course_id,
		r.title,
		r.enrolled,
		r.active,
		r.completed,
		r.withdrawn,
		r.expired,
		r.overdue,
		r.completion_rate,
		r.certificates.valid,
		r.certificates.expiring_30d,
		r.certificates.expired,
	];
}

/** The report as CSV (SPEC §17): a header line, one line per course; the API's and the Compliance page's download. */
export function courseCompletionCsv(rows: readonly CourseCompletionRow[]): string {
	return csvLines(CSV_COLUMNS, rows.map(csvRow));
}
