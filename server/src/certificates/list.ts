import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { dateTimeParam, idParam } from '../http/validate';
import { CERTIFICATES, certificateConditions, type CertificateRow } from './queries';
import { serializeCertificate } from './serialize';

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
