import { randomInt } from 'node:crypto';

import { Sequelize } from 'sequelize';

import { RuleError } from '../common/rule-error';
import { Course } from '../courses/model';
import { changeEnrollment } from '../enrollments/change';
import { enrollStudent } from '../enrollments/enroll';
import { Enrollment, type EnrollmentStatus } from '../enrollments/model';
import type { Organization } from '../organizations/model';
import { User } from '../users/model';
import { createUser } from '../users/service';
import { peopleOf } from './people';

/**
 * `lms-server demo activity`: a few believable things happen in an organization, through the
 * same components as the API (so every one of them writes its event): learners progress,
 * complete (and earn certificates), withdraw and come back; new students arrive and enroll.
 */

const pick = <T>(items: readonly T[]): T => items[randomInt(items.length)];

async function randomEnrollment(organizationId: string, status: EnrollmentStatus): Promise<Enrollment | null> {
	return Enrollment.findOne({ where: { organizationId, status }, order: Sequelize.fn('RANDOM') as never, attributes: ['id', 'progressPercent'] });
}

async function randomPublishedCourse(organizationId: string): Promise<Course | null> {
	return Course.findOne({ where: { organizationId, status: 'published' }, order: Sequelize.fn('RANDOM') as never, attributes: ['id', 'title'] });
}

type Action = (org: Organization) => Promise<string | undefined>;

const progress: Action = async (org) => {
	const e = await randomEnrollment(org.id, 'active');
	if (!e) return undefined;
	const next = Math.min(100, e.progressPercent + 10 + randomInt(30));
	const changed = await changeEnrollment(org.id, e.id, { progress: next });
	return changed.status === 'completed' ? `${e.id} completed the course (certificate issued)` : `${e.id} progressed to ${next}%`;
};

const complete: Action = async (org) => {
	const e = await randomEnrollment(org.id, 'active');
	if (!e) return undefined;
	await changeEnrollment(org.id, e.id, { status: 'completed' });
	return `${e.id} completed the course (certificate issued)`;
};

const withdraw: Action = async (org) => {
	const e = await randomEnrollment(org.id, 'active');
	if (!e) return undefined;
	await changeEnrollment(org.id, e.id, { status: 'withdrawn' });
	return `${e.id} withdrew`;
};

const reactivate: Action = async (org) => {
	const e = await randomEnrollment(org.id, 'withdrawn');
	if (!e) return undefined;
	await changeEnrollment(org.id, e.id, { status: 'active' });
	return `${e.id} came back (reactivated)`;
};

const domainOf = (org: Organization) => `${org.slug}.test`;

/**
 * A new assignment's deadline: none, one a few minutes away (so enrollment.overdue shows up
 * while you watch, unless the learner is quick), or one in the coming weeks.
 */
function newDeadline(): Date | null {
	const choice = randomInt(3);
	if (choice === 0) return null;
	return new Date(Date.now() + (choice === 1 ? (2 + randomInt(4)) * 60_000 : (3 + randomInt(25)) * 86_400_000));
}

const newStudent: Action = async (org) => {
	// A name from the demo's list, numbered so it never collides with earlier arrivals.
	const person = peopleOf(domainOf(org), randomInt(1_600))();
	const email = person.email.replace('@', `.${Date.now().toString(36)}${randomInt(1000)}@`);
	const student = await createUser({ organization: org, email, name: person.name, role: 'student' });
	const course = await randomPublishedCourse(org.id);
	if (!course) return `${student.name} joined as a student`;
	const enrollment = await enrollStudent(org.id, student.id, course.id, newDeadline());
	return `${student.name} joined and enrolled in ${course.title} (${enrollment.id}${dueNote(enrollment.dueAt)})`;
};

const enrollSomeone: Action = async (org) => {
	const [student, course] = await Promise.all([
		User.findOne({ where: { organizationId: org.id, role: 'student' }, order: Sequelize.fn('RANDOM') as never, attributes: ['id', 'name'] }),
		randomPublishedCourse(org.id),
	]);
	if (!student || !course) return undefined;
	const enrollment = await enrollStudent(org.id, student.id, course.id, newDeadline());
	return `${student.name} enrolled in ${course.title} (${enrollment.id}${dueNote(enrollment.dueAt)})`;
};

const dueNote = (dueAt: Date | null) => (dueAt === null ? '' : `, due ${dueAt.toISOString()}`);

/** Weighted: progress is what mostly happens. */
const ACTIONS: Action[] = [progress, progress, progress, progress, complete, withdraw, reactivate, newStudent, enrollSomeone];

/** One round: one to three things happen. Returns a line for each. */
export async function activityRound(org: Organization): Promise<string[]> {
	const lines: string[] = [];
	for (let i = 1 + randomInt(3); i > 0; i--) {
		try {
			const line = await pick(ACTIONS)(org);
			if (line) lines.push(line);
		} catch (err) {
			// A random pick can meet a rule (already enrolled): that is the demo, not a failure.
			if (!(err instanceof RuleError)) throw err;
		}
	}
	return lines;
}
