import { iso } from '../common/time';
import type { CertificateRow } from './queries';

export function serializeCertificate(certificate: CertificateRow) {
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
