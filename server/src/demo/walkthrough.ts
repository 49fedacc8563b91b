import { Op } from 'sequelize';

import { Certificate } from '../certificates/model';
import { Course } from '../courses/model';
import { Enrollment } from '../enrollments/model';
import type { Organization } from '../organizations/model';
import { User } from '../users/model';
import { activityRound } from './activity';

/** Ids of the demo organization that make the README's "Use the API" run as printed. */
export interface Walkthrough {
	STUDENT: string;
	STUDENT_EMAIL: string;
	COURSE: string;
	ENROLLMENT: string;
	CERTIFICATE: string;
}

/** A few rounds of demo activity, so the event feed has something to show on the first start. */
const FIRST_ROUNDS = 3;

/**
 * After `start --demo` loads the demo: a little activity (real events, through the same components
 * as the API), then a published course, a student not enrolled in it (the README enrolls them),
 * another student's active enrollment (the README progresses and completes it) and a certificate.
 */
export async function prepareWalkthrough(organization: Organization): Promise<Walkthrough> {
	for (let round = 0; round < FIRST_ROUNDS; round++) await activityRound(organization);
	const organizationId = organization.id;
	const course = await Course.findOne({ where: { organizationId, status: 'published' }, order: [['id', 'ASC']], rejectOnEmpty: true });
	const enrolled = (await Enrollment.findAll({ where: { organizationId, courseId: course.id }, attributes: ['studentId'] })).map((e) => e.studentId);
	const student = await User.findOne({
		where: { organizationId, role: 'student', id: { [Op.notIn]: enrolled } },
		order: [['id', 'ASC']],
		rejectOnEmpty: true,
	});
	const enrollment = await Enrollment.findOne({
		where: { organizationId, status: 'active', studentId: { [Op.ne]: student.id } },
		order: [['id', 'ASC']],
		rejectOnEmpty: true,
	});
	const certificate = await Certificate.findOne({ where: { organizationId }, order: [['id', 'ASC']], rejectOnEmpty: true });
	return { STUDENT: student.id, STUDENT_EMAIL: student.email, COURSE: course.id, ENROLLMENT: enrollment.id, CERTIFICATE: certificate.id };
}
