import type { Transaction } from 'sequelize';

import { Course } from '../courses/model';
import type { Enrollment } from '../enrollments/model';
import { recordEvent } from '../events/record';
import { Certificate } from './model';
import { serializeCertificate } from './serialize';

const DAY_MS = 24 * 3_600_000;

/**
 * The certificate a completion earns, with its `certificate.issued` event, inside the
 * completion's transaction. It expires after the course's validity (none: never). The unique
 * index on certificates.enrollment_id backs the caller's row lock: one certificate per
 * enrollment, whatever races.
 */
export async function issueCertificate(enrollment: Enrollment, issuedAt: Date, transaction: Transaction): Promise<Certificate> {
	const course = await Course.findByPk(enrollment.courseId, { attributes: ['id', 'certificateValidityDays'], transaction });
	const days = course?.certificateValidityDays ?? null;
	const certificate = await Certificate.create(
		{
			organizationId: enrollment.organizationId,
			studentId: enrollment.studentId,
			courseId: enrollment.courseId,
			enrollmentId: enrollment.id,
			issuedAt,
			expiresAt: days === null ? null : new Date(issuedAt.getTime() + days * DAY_MS),
		},
		{ transaction },
	);
	await recordEvent(transaction, {
		organizationId: enrollment.organizationId,
		type: 'certificate.issued',
		object: serializeCertificate(certificate),
		at: issuedAt,
	});
	return certificate;
}
