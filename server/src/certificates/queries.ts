import type { Read, Table } from '../db/table';
import type { Where } from '../db/where';
import type { Certificate } from './model';

export type CertificateRow = Read<
	Pick<
		Certificate,
		'id' | 'studentId' | 'courseId' | 'enrollmentId' | 'issuedAt' | 'expiresAt' | 'verificationCode'
	>
>;

export const CERTIFICATES: Table<CertificateRow> = {
	name: 'certificates',
	columns: {
		id: 'id',
		studentId: 'student_id',
		courseId: 'course_id',
		enrollmentId: 'enrollment_id',
		issuedAt: 'issued_at',
		expiresAt: 'expires_at',
		verificationCode: 'verification_code',
	},
	dates: ['issuedAt', 'expiresAt'],
};

export interface CertificateFilters {
	student_id?: string;
	course_id?: string;
	/** ISO 8601 date-times, already checked: `expires_after` < expires_at < `expires_before`. */
	expires_before?: string;
	expires_after?: string;
	/** Already checked: letters and digits (certificates/list.ts). */
	verification_code?: string;
}

/**
 * A certificate that never expires (expires_at null) is in no window: `<` and `>` are never
 * true of null. Bounds are compared as instants (Date parameters), whatever offset they had.
 */
export function certificateConditions(
	where: Where,
	{ student_id, course_id, expires_before, expires_after, verification_code }: CertificateFilters,
): void {
	where.equals('student_id', student_id).equals('course_id', course_id);
	// Codes are issued upper-case (certificates/model.ts); a person copying one from paper may not
	// keep the case. The unique index on verification_code serves it.
	where.equals('verification_code', verification_code?.toUpperCase());
	if (expires_before !== undefined) where.and((p) => `expires_at < ${p}`, new Date(expires_before));
	if (expires_after !== undefined) where.and((p) => `expires_at > ${p}`, new Date(expires_after));
}
