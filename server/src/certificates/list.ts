import Joi from 'joi';

import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { idParam } from '../http/validate';
import { CERTIFICATES, certificateConditions, type CertificateRow } from './queries';
import { serializeCertificate } from './serialize';

/**
 * An ISO 8601 date-time with its offset (`2026-05-01T00:00:00Z`, `…+02:00`, optional fraction),
 * naming a day and time that exist. A bare date or a time without offset is refused: which
 * instant it means would be a guess.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/i;

function isDateTime(value: string): boolean {
	const m = DATE_TIME.exec(value);
	if (!m) return false;
	const [year, month, day, hour, minute, second = 0] = m.slice(1, 7).map((part) => Number(part ?? 0));
	const inMonth = new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
	const offsetOk = m[8] === undefined || (Number(m[8]) <= 23 && Number(m[9]) <= 59);
	return month >= 1 && month <= 12 && inMonth && hour <= 23 && minute <= 59 && second <= 59 && offsetOk && !Number.isNaN(Date.parse(value));
}

const dateTimeParam = () =>
	Joi.string()
		.custom((value: string, helpers) => (isDateTime(value) ? value : helpers.error('string.dateTime')))
		.messages({ 'string.dateTime': '{{#label}} must be an ISO 8601 date-time with an offset, such as 2026-05-01T00:00:00Z' });

/** GET /api/v1/certificates, filtered by `student_id`, `course_id` and the expiry window (certificates/queries.ts). */
export const listCertificates = listEndpoint<
	CertificateRow,
	{ student_id: string; course_id: string; expires_before: string; expires_after: string }
>({
	table: CERTIFICATES,
	filters: { student_id: idParam('user'), course_id: idParam('course'), expires_before: dateTimeParam(), expires_after: dateTimeParam() },
	where: certificateConditions,
	serialize: serializeCertificate,
	counter: ({ student_id, course_id, expires_before, expires_after }) =>
		student_id === undefined && expires_before === undefined && expires_after === undefined
			? { list: 'certificates', filter: counterFilter([['course', course_id]]) }
			: undefined,
});
