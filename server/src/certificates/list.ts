import { listEndpoint } from '../http/list';
import { idParam } from '../http/validate';
import { Certificate } from './model';
import { serializeCertificate } from './serialize';

/** GET /api/v1/certificates, filtered by `student_id` and `course_id`. */
export const listCertificates = listEndpoint<Certificate, { student_id: string; course_id: string }>({
	model: Certificate,
	filters: { student_id: idParam('user'), course_id: idParam('course') },
	where: (organizationId, { student_id, course_id }) => ({
		organizationId,
		...(student_id !== undefined ? { studentId: student_id } : {}),
		...(course_id !== undefined ? { courseId: course_id } : {}),
	}),
	serialize: serializeCertificate,
});
