import { UniqueConstraintError } from 'sequelize';

import { isIdOf } from '../common/id-shapes';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { recordEvent } from '../events/record';
import { Enrollment } from './model';
import { recordOverdueIfOwed } from './overdue';
import { COURSES_NAMED, ENROLLMENTS_OF_PAIRS, STUDENT_STATUS_LOCKED, STUDENTS_NAMED } from './queries';
import { serializeEnrollment } from './serialize';

interface StudentRow {
	id: string;
	role: string;
	status: string;
}

const pairKey = (studentId: string, courseId: string) => `${studentId} ${courseId}`;

/**
 * What enrolling checks before its transaction, read for one or many requests at once: the
 * students, the courses, and the enrollments the pairs already have. A batch of 100 items
 * (POST /enrollments/batch) reads them in three statements instead of three per item; each item
 * is then checked by the same rules, in enrollStudent, as its own POST is. An id of the wrong
 * shape names nothing and is never sent to the database (a NUL byte, for one, is a string
 * neither SQLite nor PostgreSQL will take).
 */
export class EnrollmentReads {
	private constructor(
		private readonly organizationId: string,
		private readonly students: Map<string, StudentRow>,
		private readonly courses: Map<string, { id: string; status: string }>,
		/** Every pair asked about: its enrollment's id, or null for none. */
		private readonly enrollments: Map<string, string | null>,
	) {}

	static async of(organizationId: string, requests: ReadonlyArray<{ studentId: unknown; courseId: unknown }>): Promise<EnrollmentReads> {
		const db = database();
		const studentIds = [...new Set(requests.map((r) => r.studentId).filter((id) => isIdOf('user', id)))];
		const courseIds = [...new Set(requests.map((r) => r.courseId).filter((id) => isIdOf('course', id)))];
		const pairs = requests.filter((r) => isIdOf('user', r.studentId) && isIdOf('course', r.courseId)).map((r) => [r.studentId as string, r.courseId as string]);
		const [students, courses, enrolled] = await Promise.all([
			studentIds.length === 0 ? [] : db.read<StudentRow>(STUDENTS_NAMED(db), [organizationId, JSON.stringify(studentIds)]),
			courseIds.length === 0 ? [] : db.read<{ id: string; status: string }>(COURSES_NAMED(db), [organizationId, JSON.stringify(courseIds)]),
			pairs.length === 0 ? [] : db.read<{ id: string; student_id: string; course_id: string }>(ENROLLMENTS_OF_PAIRS(db), [JSON.stringify(pairs)]),
		]);
		const enrollments = new Map<string, string | null>(pairs.map(([s, c]) => [pairKey(s, c), null]));
		for (const e of enrolled) enrollments.set(pairKey(e.student_id, e.course_id), e.id);
		return new EnrollmentReads(organizationId, new Map(students.map((u) => [u.id, u])), new Map(courses.map((c) => [c.id, c])), enrollments);
	}

	/** Whether these reads answer for this request (a batch reads for its items, not for any other). */
	covers(organizationId: string, studentId: string, courseId: string): boolean {
		return organizationId === this.organizationId && this.enrollments.has(pairKey(studentId, courseId));
	}

	student(id: string): StudentRow | undefined {
		return this.students.get(id);
	}

	course(id: string): { id: string; status: string } | undefined {
		return this.courses.get(id);
	}

	enrollmentOf(studentId: string, courseId: string): string | null {
		return this.enrollments.get(pairKey(studentId, courseId)) ?? null;
	}

	/** A later item of the same batch with the same pair is refused as its own POST would be, without trying the insert. */
	enrolled(studentId: string, courseId: string, enrollmentId: string): void {
		this.enrollments.set(pairKey(studentId, courseId), enrollmentId);
	}
}

/**
 * Enrolls a student of the organization in one of its published courses, or says why not.
 * Uniqueness is the database's job (unique student_id + course_id): of any number of
 * concurrent identical calls, one insert wins and the rest find its row and refuse with
 * already_enrolled, naming it. `dueAt` may already be past (late assignments imported): the
 * enrollment is then overdue at once, and its enrollment.overdue commits with it. `reads` are a
 * batch's reads made before its first item (EnrollmentReads); without them, this request's own.
 */
export async function enrollStudent(
	organizationId: string,
	studentId: string,
	courseId: string,
	dueAt: Date | null = null,
	reads?: EnrollmentReads,
): Promise<Enrollment> {
	const known = reads?.covers(organizationId, studentId, courseId) ? reads : await EnrollmentReads.of(organizationId, [{ studentId, courseId }]);
	const student = known.student(studentId);
	const course = known.course(courseId);
	if (!student) throw new RuleError('student_not_found', 'No user with this student_id exists in the organization.');
	if (student.role !== 'student') {
		throw new RuleError('not_a_student', `The user's role is ${student.role}; only students can be enrolled.`, { role: student.role });
	}
	if (student.status === 'deactivated') throw userDeactivated();
	if (!course) throw new RuleError('course_not_found', 'No course with this course_id exists in the organization.');
	if (course.status !== 'published') {
		throw new RuleError('course_not_published', 'The course is a draft; students can be enrolled once it is published.');
	}

	const existing = known.enrollmentOf(studentId, courseId);
	if (existing !== null) throw alreadyEnrolled(existing);
	try {
		// The enrollment and its event commit together (SPEC §11).
		const enrollment = await writeTransaction(database(), async (transaction) => {
			// Again under a share lock of the user's row: a deactivation (users/change.ts) either
			// committed before this and is seen here, or waits for this enrollment and withdraws it.
			const [locked] = await database().rows<{ status: string }>(STUDENT_STATUS_LOCKED(database()), [studentId], transaction);
			if (locked?.status !== 'active') throw userDeactivated();
			const made = await Enrollment.create(
				{ organizationId, studentId, courseId, status: 'active', progressPercent: 0, enrolledAt: new Date(), completedAt: null, dueAt },
				{ transaction },
			);
			await recordEvent(transaction, {
				organizationId,
				type: 'enrollment.created',
				object: serializeEnrollment(made),
				at: made.createdAt,
			});
			await recordOverdueIfOwed(made, transaction);
			return made;
		});
		known.enrolled(studentId, courseId, enrollment.id);
		return enrollment;
	} catch (err) {
		if (!(err instanceof UniqueConstraintError)) throw err;
		const winner = await Enrollment.findOne({ where: { studentId, courseId }, attributes: ['id'] });
		if (!winner) throw err;
		known.enrolled(studentId, courseId, winner.id);
		throw alreadyEnrolled(winner.id);
	}
}

export function userDeactivated(): RuleError {
	return new RuleError('user_deactivated', 'The user is deactivated; reactivate them (status active) before enrolling them again.');
}

function alreadyEnrolled(enrollmentId: string): RuleError {
	return new RuleError('already_enrolled', `The student is already enrolled in this course (${enrollmentId}).`, { enrollmentId });
}
