import type { Database } from '../db';
import { namedRows } from '../db/named-rows';
import type { Read, Table } from '../db/table';
import type { Where } from '../db/where';
import type { Enrollment } from './model';
import { overdueSql } from './overdue-rule';

export type EnrollmentRow = Read<
	Pick<
		Enrollment,
		'id' | 'studentId' | 'courseId' | 'status' | 'progressPercent' | 'enrolledAt' | 'completedAt' | 'dueAt' | 'assignmentId' | 'createdAt' | 'updatedAt'
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
		assignmentId: 'assignment_id',
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
	group_id?: string;
	assignment_id?: string;
}

/**
 * An enrollment without a deadline is in no due window (`<` and `>` are never true of null).
 * `overdue` is the serializer's rule (enrollments/serialize.ts) as SQL, at the moment of the read.
 */
export function enrollmentConditions(where: Where, { student_id, course_id, status, due_before, due_after, overdue, group_id, assignment_id }: EnrollmentFilters): void {
	where.equals('student_id', student_id).equals('course_id', course_id).equals('status', status).equals('assignment_id', assignment_id);
	// The group's members as they are now (SPEC §20); the organization is already in `where`.
	if (group_id !== undefined) where.and((p) => `student_id IN (SELECT user_id FROM group_members WHERE group_id = ${p})`, group_id);
	if (due_before !== undefined) where.and((p) => `due_at < ${p}`, new Date(due_before));
	if (due_after !== undefined) where.and((p) => `due_at > ${p}`, new Date(due_after));
	if (overdue === 'true') where.and((p) => overdueSql(p), new Date());
	if (overdue === 'false') where.and((p) => `NOT (${overdueSql(p)})`, new Date());
}

/**
 * What enrolling reads before its transaction (enrollments/enroll.ts), for any number of requests
 * at once: `$1` the organization, `$2` a JSON array of ids. A batch of 100 items reads its
 * students in one statement instead of 100.
 */
export const STUDENTS_NAMED = (db: Database) => namedRows(db, 'users', 't.id, t.role, t.status');
export const COURSES_NAMED = (db: Database) => namedRows(db, 'courses', 't.id, t.status');

/** The enrollments of the pairs in `$1`, a JSON array of [student id, course id] (the unique index on the pair answers each). */
export const ENROLLMENTS_OF_PAIRS = (db: Database) =>
	db.dialect === 'postgres'
		? `SELECT e.id, e.student_id, e.course_id FROM json_array_elements($1::json) AS p JOIN enrollments AS e ON e.student_id = p ->> 0 AND e.course_id = p ->> 1`
		: `SELECT e.id, e.student_id, e.course_id FROM json_each($1) AS p JOIN enrollments AS e ON e.student_id = p.value ->> 0 AND e.course_id = p.value ->> 1`;

/** The user's status inside an enrollment's transaction, under a share lock of the row on PostgreSQL (enrollments/enroll.ts says why). */
export const STUDENT_STATUS_LOCKED = (db: Database) => `SELECT status FROM users WHERE id = $1${db.dialect === 'postgres' ? ' FOR SHARE' : ''}`;
