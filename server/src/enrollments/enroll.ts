import { UniqueConstraintError } from 'sequelize';

import { isIdOf } from '../common/id-shapes';
import { RuleError } from '../common/rule-error';
import { Course } from '../courses/model';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { recordEvent } from '../events/record';
import { User } from '../users/model';
import { Enrollment } from './model';
import { recordOverdueIfOwed } from './overdue';
import { serializeEnrollment } from './serialize';

/**
 * Enrolls a student of the organization in one of its published courses, or says why not.
 * Uniqueness is the database's job (unique student_id + course_id): of any number of
 * concurrent identical calls, one insert wins and the rest find its row and refuse with
 * already_enrolled, naming it. `dueAt` may already be past (late assignments imported): the
 * enrollment is then overdue at once, and its enrollment.overdue commits with it.
 */
export async function enrollStudent(organizationId: string, studentId: string, courseId: string, dueAt: Date | null = null): Promise<Enrollment> {
	// An id of the wrong shape names nothing and never reaches the database (a NUL byte, for
	// one, is a string neither SQLite nor PostgreSQL will take).
	const [student, course] = await Promise.all([
		isIdOf('user', studentId) ? User.findOne({ where: { id: studentId, organizationId }, attributes: ['id', 'role', 'status'] }) : null,
		isIdOf('course', courseId) ? Course.findOne({ where: { id: courseId, organizationId }, attributes: ['id', 'status'] }) : null,
	]);
	if (!student) throw new RuleError('student_not_found', 'No user with this student_id exists in the organization.');
	if (student.role !== 'student') {
		throw new RuleError('not_a_student', `The user's role is ${student.role}; only students can be enrolled.`, { role: student.role });
	}
	if (student.status === 'deactivated') throw userDeactivated();
	if (!course) throw new RuleError('course_not_found', 'No course with this course_id exists in the organization.');
	if (course.status !== 'published') {
		throw new RuleError('course_not_published', 'The course is a draft; students can be enrolled once it is published.');
	}

	const existing = await Enrollment.findOne({ where: { studentId, courseId }, attributes: ['id'] });
	if (existing) throw alreadyEnrolled(existing.id);
	try {
		// The enrollment and its event commit together (SPEC §11).
		return await writeTransaction(database(), async (transaction) => {
			// Again under a share lock of the user's row: a deactivation (users/change.ts) either
			// committed before this and is seen here, or waits for this enrollment and withdraws it.
			const locked = await User.findOne({ where: { id: studentId }, attributes: ['id', 'status'], transaction, lock: transaction.LOCK.SHARE });
			if (locked?.status !== 'active') throw userDeactivated();
			const enrollment = await Enrollment.create(
				{ organizationId, studentId, courseId, status: 'active', progressPercent: 0, enrolledAt: new Date(), completedAt: null, dueAt },
				{ transaction },
			);
			await recordEvent(transaction, {
				organizationId,
				type: 'enrollment.created',
				object: serializeEnrollment(enrollment),
				at: enrollment.createdAt,
			});
			await recordOverdueIfOwed(enrollment, transaction);
			return enrollment;
		});
	} catch (err) {
		if (!(err instanceof UniqueConstraintError)) throw err;
		const winner = await Enrollment.findOne({ where: { studentId, courseId }, attributes: ['id'] });
		if (!winner) throw err;
		throw alreadyEnrolled(winner.id);
	}
}

export function userDeactivated(): RuleError {
	return new RuleError('user_deactivated', 'The user is deactivated; reactivate them (status active) before enrolling them again.');
}

function alreadyEnrolled(enrollmentId: string): RuleError {
	return new RuleError('already_enrolled', `The student is already enrolled in this course (${enrollmentId}).`, { enrollmentId });
}
