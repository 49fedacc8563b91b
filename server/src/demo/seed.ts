import type { Transaction } from 'sequelize';

import { Certificate } from '../certificates/model';
import { randomBase62 } from '../common/ids';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { Course } from '../courses/model';
import { Enrollment, type EnrollmentStatus } from '../enrollments/model';
import { Organization } from '../organizations/model';
import { hashPassword } from '../users/password';
import { User, type Role } from '../users/model';
import { DEMO_ORGANIZATIONS, DEMO_SLUGS, type DemoOrganization } from './catalogue';
import { peopleOf } from './people';

/** What `seed --demo --json` prints: enough to sign in, call the API and test draft courses. */
export interface DemoResult {
	organizations: Array<{ slug: string; id: string; plan: string }>;
	accounts: Array<{ email: string; role: Role; password: string; organization: string }>;
	draft_courses: Array<{ id: string; organization: string }>;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The demo history spans this many days before the seed, so lists have a believable past. */
const HISTORY_DAYS = 200;

/** Ten enrollments in a row get these statuses: 4 completed, 4 active, 1 withdrawn, 1 expired. */
const STATUS_CYCLE: EnrollmentStatus[] = [
	'completed', 'active', 'completed', 'active', 'withdrawn',
	'completed', 'active', 'expired', 'active', 'completed',
];

/** Readable and still ~119 bits: four groups of five base62 characters. */
function generatePassword(): string {
	return Array.from({ length: 4 }, () => randomBase62(5)).join('-');
}

const isDraft = (courseIndex: number) => courseIndex % 4 === 3;


/** Names of the demo organizations that already exist; seeding refuses when there are any. */
async function existingDemoOrganizations(): Promise<string[]> {
	const found = await Organization.findAll({ where: { slug: DEMO_SLUGS }, attributes: ['slug'] });
	return found.map((o) => o.slug);
}

/**
 * Loads SPEC §8's demo data. Passwords are hashed before any transaction opens (scrypt is
 * slow, and a SQLite write lock should not wait on it); each organization is then one
 * transaction of bulk inserts, so a failure leaves no half-built organization behind.
 */
export async function seedDemo(options: { now?: Date } = {}): Promise<DemoResult> {
	const existing = await existingDemoOrganizations();
	if (existing.length > 0) {
		throw new RuleError(
			'demo_exists',
			`The demo organizations already exist (${existing.join(', ')}); seed a fresh database instead.`,
		);
	}
	const start = (options.now ?? new Date()).getTime() - HISTORY_DAYS * DAY;
	const result: DemoResult = { organizations: [], accounts: [], draft_courses: [] };

	// `slug:role` → the password shown once and the hash stored.
	const credentials = new Map(
		await Promise.all(
			DEMO_ORGANIZATIONS.flatMap((spec) =>
				signInRoles(spec).map(async (role) => {
					const password = generatePassword();
					return [`${spec.slug}:${role}`, { password, hash: await hashPassword(password) }] as const;
				}),
			),
		),
	);

	for (const [index, spec] of DEMO_ORGANIZATIONS.entries()) {
		await writeTransaction(database(), async (transaction) => {
			const seeded = await seedOrganization(spec, index, start, credentials, transaction);
			result.organizations.push({ slug: spec.slug, id: seeded.organization.id, plan: spec.plan });
			for (const user of seeded.signIns) {
				result.accounts.push({
					email: user.email,
					role: user.role,
					password: credentials.get(`${spec.slug}:${user.role}`)!.password,
					organization: spec.slug,
				});
			}
			for (const c of seeded.drafts) result.draft_courses.push({ id: c.id, organization: spec.slug });
		});
	}
	return result;
}

function signInRoles(spec: DemoOrganization): Role[] {
	return ['super_admin', ...(spec.admins > 0 ? (['admin'] as Role[]) : [])];
}

async function seedOrganization(
	spec: DemoOrganization,
	orgIndex: number,
	start: number,
	credentials: Map<string, { hash: string }>,
	transaction: Transaction,
) {
	// Each organization's clock is shifted by a few seconds, so timestamps are distinct across
	// organizations too (within one, the schedule below already keeps them apart and ordered).
	const at = (ms: number) => new Date(start + orgIndex * 7_013 + ms);
	const organization = await Organization.create(
		{ name: spec.name, slug: spec.slug, plan: spec.plan, createdAt: at(orgIndex * HOUR), updatedAt: at(orgIndex * HOUR) },
		// silent: keep our updatedAt instead of "now".
		{ transaction, silent: true },
	);
	const nextPerson = peopleOf(spec.domain, orgIndex * 13);
	const person = (role: Role, createdAt: Date) => {
		const p = nextPerson();
		return {
			organizationId: organization.id,
			name: p.name,
			email: p.email,
			emailLower: p.email.toLowerCase(),
			role,
			passwordHash: credentials.get(`${spec.slug}:${role}`)?.hash ?? null,
			createdAt,
			updatedAt: createdAt,
		};
	};

	// Staff join in the first days, then courses appear, then students arrive over ~4 months.
	const staffRoles: Role[] = [...signInRoles(spec), ...Array<Role>(spec.instructors).fill('instructor')];
	const staff = staffRoles.map((role, i) => person(role, at(DAY + i * 3 * HOUR)));
	const studentSpan = 130 * DAY;
	const students = Array.from({ length: spec.students }, (_, i) =>
		// A few minutes of jitter so sign-up times look human; the step (> 20 h) keeps them ordered.
		person('student', at(30 * DAY + Math.floor((i * studentSpan) / spec.students) + ((i * 37) % 60) * 60_000)),
	);
	const users = await User.bulkCreate([...staff, ...students], { transaction });
	const signIns = users.filter((u) => u.passwordHash !== null);
	const studentRows = users.filter((u) => u.role === 'student');

	const courses = await Course.bulkCreate(
		spec.courses.map((c, i) => {
			const createdAt = at(3 * DAY + i * 2 * DAY);
			const publishedAt = isDraft(i) ? null : at(3 * DAY + i * 2 * DAY + DAY);
			return {
				organizationId: organization.id,
				title: c.title,
				description: c.description,
				status: isDraft(i) ? ('draft' as const) : ('published' as const),
				publishedAt,
				certificateValidityDays: c.certificateValidityDays,
				createdAt,
				updatedAt: publishedAt ?? createdAt,
			};
		}),
		{ transaction },
	);
	const published = courses
		.map((course, i) => ({ course, spec: spec.courses[i] }))
		.filter(({ course }) => course.status === 'published');

	const now = start + HISTORY_DAYS * DAY;
	const enrollments = published.length === 0 ? [] : buildEnrollments(spec, organization.id, studentRows, published, now);
	const enrollmentRows = await Enrollment.bulkCreate(enrollments, { transaction });
	const specOf = new Map(published.map((p) => [p.course.id, p.spec]));
	// Every completed enrollment earned its certificate on the day it was completed.
	await Certificate.bulkCreate(
		enrollmentRows
			.filter((e) => e.status === 'completed')
			.map((e) => ({ e, course: specOf.get(e.courseId)! }))
			.map(({ e, course }) => ({
				organizationId: organization.id,
				studentId: e.studentId,
				courseId: e.courseId,
				enrollmentId: e.id,
				issuedAt: e.completedAt!,
				expiresAt: course.certificateValidityDays === null ? null : new Date(e.completedAt!.getTime() + course.certificateValidityDays * DAY),
				createdAt: e.completedAt!,
				updatedAt: e.completedAt!,
			})),
		{ transaction },
	);
	return { organization, signIns, drafts: courses.filter((c) => c.status === 'draft') };
}

/**
 * SPEC §17's deadlines on active enrollments, so a newcomer sees them at once: of every five, one
 * overdue by 1 to 14 days, one due within the coming week, one due in 15 to 60 days, two with no
 * deadline. `now` is the seed's moment.
 */
function deadlineOf(j: number, now: number): { dueAt: Date | null; overdueNotifiedAt: Date | null } {
	const kind = (j * 3 + Math.floor(j / 10)) % 5;
	const dueAt =
		kind === 0 ? now - (1 + (j % 14)) * DAY : kind === 1 ? now + (1 + (j % 7)) * DAY - 5 * HOUR : kind === 2 ? now + (15 + (j % 46)) * DAY : null;
	// The seed writes history without events: a deadline already missed counts as told.
	return { dueAt: dueAt === null ? null : new Date(dueAt), overdueNotifiedAt: kind === 0 ? new Date(dueAt!) : null };
}

/**
 * Student i takes 1 + (i mod cycle) consecutive published courses; statuses follow
 * STATUS_CYCLE, with progress and dates that agree with the status; active ones may have a
 * deadline (deadlineOf).
 */
function buildEnrollments(
	spec: DemoOrganization,
	organizationId: string,
	students: User[],
	published: Array<{ course: Course }>,
	now: number,
) {
	const rows = [];
	let j = 0;
	for (const [i, student] of students.entries()) {
		const count = Math.min(1 + (i % spec.coursesPerStudentCycle), published.length);
		for (let k = 0; k < count; k++) {
			const course = published[(i + k) % published.length].course;
			const status = STATUS_CYCLE[j % STATUS_CYCLE.length];
			// Students arrive after every course is published, so enrolling right after sign-up is valid.
			const enrolledAt = new Date(student.createdAt.getTime() + (k + 1) * 3 * HOUR + (j % 7) * 7 * 60_000);
			const completedAt = status === 'completed' ? new Date(enrolledAt.getTime() + (5 + (j % 20)) * DAY) : null;
			const progress = { active: 5 + ((j * 13) % 91), completed: 100, withdrawn: (j * 7) % 61, expired: 10 + ((j * 11) % 71) }[status];
			const updatedAt = completedAt ?? new Date(enrolledAt.getTime() + (1 + (j % 10)) * DAY);
			rows.push({
				organizationId,
				studentId: student.id,
				courseId: course.id,
				status,
				progressPercent: progress,
				enrolledAt,
				completedAt,
				...(status === 'active' ? deadlineOf(j, now) : { dueAt: null, overdueNotifiedAt: null }),
				createdAt: enrolledAt,
				updatedAt,
			});
			j += 1;
		}
	}
	return rows;
}
