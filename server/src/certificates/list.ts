import Joi from 'joi';

import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { dateTimeParam } from '../http/validate';
import { studentAndCourseList } from '../enrollments/list';
import { VERIFICATION_CODE_MAX_LENGTH, VERIFICATION_CODE_RULE } from './model';
import { CERTIFICATES, certificateConditions, type CertificateRow } from './queries';
import { serializeCertificate } from './serialize';

type Filters = { student_id: string; course_id: string; expires_before: string; expires_after: string; verification_code: string; search: string };

/**
 * GET /api/v1/certificates, filtered by `student_id`, `course_id`, the expiry window,
 * `verification_code` (certificates/queries.ts) and `search` (the student's name or e-mail, the
 * course's title); `sort=-created_at` and `expand=student,course` are what a picker needs.
 */
export const listCertificates = listEndpoint<CertificateRow, Filters>({
	...studentAndCourseList<CertificateRow, Filters>(
		CERTIFICATES,
		'certificates',
		{
			expires_before: dateTimeParam().description(
				'ISO 8601 date-time with an offset (e.g. 2026-05-01T00:00:00Z). Only certificates whose expires_at is strictly before it; certificates that never expire are never included.',
			),
			expires_after: dateTimeParam().description(
				'ISO 8601 date-time with an offset. Only certificates whose expires_at is strictly after it; certificates that never expire are never included.',
			),
			verification_code: Joi.string()
				.pattern(new RegExp(`^[A-Za-z0-9]{1,${VERIFICATION_CODE_MAX_LENGTH}}$`), 'code')
				.messages({ 'string.pattern.name': `{{#label}} must be ${VERIFICATION_CODE_RULE}`, 'string.empty': `{{#label}} must be ${VERIFICATION_CODE_RULE}` })
				.description(
					'The code printed on a certificate (letters and digits, compared without regard to case): the one certificate carrying it in your organization, or an empty list. Served by a unique index.',
				),
		},
		certificateConditions,
	),
	serialize: serializeCertificate,
	counter: ({ student_id, course_id, expires_before, expires_after, verification_code, search }) =>
		student_id === undefined && expires_before === undefined && expires_after === undefined && verification_code === undefined && search === undefined
			? { list: 'certificates', filter: counterFilter([['course', course_id]]) }
			: undefined,
});
