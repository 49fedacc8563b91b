import type { Read, Table } from '../db/table';
import type { Where } from '../db/where';
import type { Enrollment } from './model';

export type EnrollmentRow = Read<
	Pick<
		Enrollment,
		'id' | 'studentId' | 'courseId' | 'status' | 'progressPercent' | 'enrolledAt' | 'completedAt' | 'dueAt' | 'createdAt' | 'updatedAt'
	>
>;

export const ENROLLMENTS: Table<EnrollmentRow> = {
	name: 'enrollments',
	columns: {
		id: 'id',
		studentId: 'student_id',
		courseId: 'course_id',
		status: 'status',
		progressPercent: 'progress_percent',
		enrolledAt: 'enrolled_at',
		completedAt: 'completed_at',
		dueAt: 'due_at',
		createdAt: 'created_at',
		updatedAt: 'updated_at',
	},
	dates: ['enrolledAt', 'completedAt', 'dueAt', 'createdAt', 'updatedAt'],
};

export interface EnrollmentFilters {
	student_id?: string;
	course_id?: string;
	status?: string;
	/** ISO 8601 date-times, already checked: `due_after` < due_at < `due_before`. */
	due_before?: string;
	due_after?: string;
	overdue?: 'true' | 'false';
}

/**
 * An enrollment without a deadline is in no due window (`<` and `>` are never true of null).
 * `overdue` is the serializer's rule (enrollments/serialize.ts) as SQL, at the moment of the read.
 */
export function enrollmentConditions(where: Where, { student_id, course_id, status, due_before, due_after, overdue }: EnrollmentFilters): void {
	where.equals('student_id', student_id).equals('course_id', course_id).equals('status', status);
	if (due_before !== undefined) where.and((p) => `due_at < ${p}`, new Date(due_before));
	if (due_after !== undefined) where.and((p) => `due_at > ${p}`, new Date(due_after));
	if (overdue === 'true') where.and((p) => `status = 'active' AND due_at <= ${p}`, new Date());
	if (overdue === 'false') where.and((p) => `(status <> 'active' OR due_at IS NULL OR due_at > ${p})`, new Date());
}
