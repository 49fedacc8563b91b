import type { Table } from '../db/table';
import type { Where } from '../db/where';
import type { Enrollment } from './model';

export type EnrollmentRow = Pick<
	Enrollment,
	'id' | 'studentId' | 'courseId' | 'status' | 'progressPercent' | 'enrolledAt' | 'completedAt' | 'createdAt' | 'updatedAt'
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
		createdAt: 'created_at',
		updatedAt: 'updated_at',
	},
	dates: ['enrolledAt', 'completedAt', 'createdAt', 'updatedAt'],
};

export interface EnrollmentFilters {
	student_id?: string;
	course_id?: string;
	status?: string;
}

export function enrollmentConditions(where: Where, { student_id, course_id, status }: EnrollmentFilters): void {
	where.equals('student_id', student_id).equals('course_id', course_id).equals('status', status);
}
