import { UniqueConstraintError } from 'sequelize';

import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { Course } from '../courses/model';
import { writeTransaction } from '../db/write-transaction';
import { recordEvent } from '../events/record';
import { User } from '../users/model';
import { Enrollment } from './model';
import { serializeEnrollment } from './serialize';

/**
 * Enrolls a student of the organization in one of its published courses, or says why not.
 * Uniqueness is the database's job (unique student_id + course_id): of any number of
 * concurrent identical calls, one insert wins and the rest find its row and answer 409.
 */
export async function enrollStudent(organizationId: string, studentId: string, courseId: string): Promise<Enrollment> {
	// An id of the wrong shape names nothing and never reaches the database (a NUL byte, for
	// one, is a string neither SQLite nor PostgreSQL will take).
	const [student, course] = await Promise.all([
		isIdOf('user', studentId) ? User.findOne({ where: { id: studentId, organizationId }, attributes: ['id', 'role'] }) : null,
		isIdOf('course', courseId) ? Course.findOne({ where: { id: courseId, organizationId }, attributes: ['id', 'status'] }) : null,
	]);
	if (!student) throw problems.studentNotFound();
	if (student.role !== 'student') throw problems.notAStudent(student.role);
	if (!course) throw problems.courseNotFound();
	if (course.status !== 'published') throw problems.courseNotPublished();

	const existing = await Enrollment.findOne({ where: { studentId, courseId }, attributes: ['id'] });
	if (existing) throw problems.alreadyEnrolled(existing.id);
	try {
		// The enrollment and its event commit together (SPEC §11).
		return await writeTransaction(Enrollment.sequelize!, async (transaction) => {
			const enrollment = await Enrollment.create(
				{ organizationId, studentId, courseId, status: 'active', progressPercent: 0, enrolledAt: new Date(), completedAt: null },
				{ transaction },
			);
			await recordEvent(transaction, {
				organizationId,
				type: 'enrollment.created',
				object: serializeEnrollment(enrollment),
				at: enrollment.createdAt,
			});
			return enrollment;
		});
	} catch (err) {
		if (!(err instanceof UniqueConstraintError)) throw err;
		const winner = await Enrollment.findOne({ where: { studentId, courseId }, attributes: ['id'] });
		if (!winner) throw err;
		throw problems.alreadyEnrolled(winner.id);
	}
}
