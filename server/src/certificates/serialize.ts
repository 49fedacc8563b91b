import { iso } from '../common/time';
import type { Certificate } from './model';

export function serializeCertificate(certificate: Certificate) {
	return {
		id: certificate.id,
		student_id: certificate.studentId,
		course_id: certificate.courseId,
		enrollment_id: certificate.enrollmentId,
		issued_at: iso(certificate.issuedAt),
		expires_at: iso(certificate.expiresAt),
		verification_code: certificate.verificationCode,
	};
}
