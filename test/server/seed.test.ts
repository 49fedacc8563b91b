import { Certificate, connect, Course, Enrollment, migrate, Organization, User, type Database } from '../../server/src/db';
import { seedDemo, type DemoResult } from '../../server/src/demo/seed';
import { COURSES, courseConditions } from '../../server/src/courses/queries';
import { readPage } from '../../server/src/db/table';
import { Where } from '../../server/src/db/where';
import { USERS, userConditions } from '../../server/src/users/queries';
import { verifyPassword } from '../../server/src/users/password';
import { runCli } from '../helpers/cli';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/** SPEC §8's demo data, loaded through the CLI as an operator would, then counted in the database. */
describe('lms-server seed --demo', () => {
	let db: TestDatabase;
	let opened: Database;
	let demo: DemoResult;
	const orgId = (slug: string) => demo.organizations.find((o) => o.slug === slug)!.id;
	const count = (model: { count(o: object): Promise<number> }, where: object) => model.count({ where });

	beforeAll(async () => {
		db = await createTestDatabase();
		const result = await runCli(['seed', '--demo', '--json'], { env: { DATABASE_URL: db.databaseUrl } });
		expect(result).toMatchObject({ code: 0, stderr: '' });
		demo = JSON.parse(result.stdout);
		opened = await connect({ databaseUrl: db.databaseUrl });
	});
	afterAll(async () => {
		await opened.close();
		await db.remove();
	});

	it('every seeded user and course is in the search index, by each word of its name or title', async () => {
		let coursesSeen = 0;
		for (const organization of demo.organizations) {
			const users = await User.findAll({ where: { organizationId: organization.id } });
			for (const user of users) {
				for (const text of [user.email.slice(0, 5).toUpperCase(), user.name.split(' ').at(-1)!.toLowerCase()]) {
					const where = new Where();
					userConditions(where, organization.id, { search: text });
					const found = (await readPage(USERS, where, { page: 1, perPage: 100 })).map((u) => u.id);
					expect([text, found.includes(user.id)]).toEqual([text, true]);
				}
			}
			const courses = await Course.findAll({ where: { organizationId: organization.id } });
			coursesSeen += courses.length;
			for (const course of courses) {
				const text = course.title.split(' ').at(-1)!;
				const where = new Where();
				courseConditions(where, organization.id, { search: text });
				const found = (await readPage(COURSES, where, { page: 1, perPage: 100 })).map((c) => c.id);
				// The API never shows a draft, found or not; drafts are indexed all the same, for the day they are published.
				if (course.status === 'published') expect(found).toContain(course.id);
				else expect(await opened.sequelize.query('SELECT word FROM search_words WHERE record_id = ?', { replacements: [course.id], type: 'SELECT' })).not.toHaveLength(0);
			}
		}
		expect(coursesSeen).toBeGreaterThan(0);
	});

	it('prints organizations, accounts with passwords and draft course ids as one JSON document', () => {
		expect(Object.keys(demo).sort()).toEqual(['accounts', 'draft_courses', 'organizations']);
		expect(demo.organizations).toEqual([
			{ slug: 'acme', id: expect.stringMatching(/^org_/), plan: 'enterprise' },
			{ slug: 'globex', id: expect.stringMatching(/^org_/), plan: 'enterprise' },
			{ slug: 'initech', id: expect.stringMatching(/^org_/), plan: 'business' },
		]);
		expect(demo.accounts.map((a) => [a.organization, a.role])).toEqual([
			['acme', 'super_admin'],
			['acme', 'admin'],
			['globex', 'super_admin'],
			['initech', 'super_admin'],
		]);
		for (const account of demo.accounts) {
			expect(Object.keys(account).sort()).toEqual(['email', 'organization', 'password', 'role']);
			expect(account.email).toMatch(new RegExp(`^[a-z.]+@${account.organization}\\.test$`));
			expect(account.password.length).toBeGreaterThanOrEqual(16);
		}
		expect(new Set(demo.accounts.map((a) => a.password)).size).toBe(4);
		expect(demo.draft_courses.map((c) => c.organization)).toEqual(['acme', 'acme', 'acme', 'globex']);
	});

	it('acme: 1 super_admin, 1 admin, 3 instructors, 150 students, 9 published and 3 draft courses', async () => {
		const organizationId = orgId('acme');
		expect(await count(User, { organizationId, role: 'super_admin' })).toBe(1);
		expect(await count(User, { organizationId, role: 'admin' })).toBe(1);
		expect(await count(User, { organizationId, role: 'instructor' })).toBe(3);
		expect(await count(User, { organizationId, role: 'student' })).toBe(150);
		expect(await count(Course, { organizationId, status: 'published' })).toBe(9);
		expect(await count(Course, { organizationId, status: 'draft' })).toBe(3);
		const drafts = await Course.findAll({ where: { organizationId, status: 'draft' } });
		expect(drafts.map((c) => c.id).sort()).toEqual(demo.draft_courses.filter((c) => c.organization === 'acme').map((c) => c.id).sort());
		expect(drafts.every((c) => c.publishedAt === null)).toBe(true);
	});

	it('acme: at least 200 enrollments in all four statuses, consistent with progress and dates', async () => {
		const organizationId = orgId('acme');
		const enrollments = await Enrollment.findAll({ where: { organizationId } });
		expect(enrollments.length).toBeGreaterThanOrEqual(200);
		expect(new Set(enrollments.map((e) => e.status))).toEqual(new Set(['active', 'completed', 'withdrawn', 'expired']));
		const published = new Set((await Course.findAll({ where: { organizationId, status: 'published' } })).map((c) => c.id));
		for (const e of enrollments) {
			expect(published.has(e.courseId)).toBe(true);
			expect(e.progressPercent).toBeGreaterThanOrEqual(0);
			expect(e.progressPercent).toBeLessThanOrEqual(100);
			if (e.status === 'completed') {
				expect(e.progressPercent).toBe(100);
				expect(e.completedAt!.getTime()).toBeGreaterThan(e.enrolledAt.getTime());
			} else {
				expect(e.progressPercent).toBeLessThan(100);
				expect(e.completedAt).toBeNull();
			}
			expect(e.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
		}
		const students = await User.findAll({ where: { organizationId, role: 'student' }, attributes: ['id'] });
		const studentIds = new Set(students.map((s) => s.id));
		expect(enrollments.every((e) => studentIds.has(e.studentId))).toBe(true);
	});

	it('acme: deadlines a newcomer sees at once: some active enrollments overdue, some due within a week, some later, some none; told as history', async () => {
		const organizationId = orgId('acme');
		const enrollments = await Enrollment.findAll({ where: { organizationId } });
		const now = Date.now();
		const active = enrollments.filter((e) => e.status === 'active');
		const overdue = active.filter((e) => e.dueAt !== null && e.dueAt.getTime() <= now);
		const soon = active.filter((e) => e.dueAt !== null && e.dueAt.getTime() > now && e.dueAt.getTime() < now + 7 * 86_400_000);
		const later = active.filter((e) => e.dueAt !== null && e.dueAt.getTime() > now + 14 * 86_400_000);
		const none = active.filter((e) => e.dueAt === null);
		for (const group of [overdue, soon, later, none]) expect(group.length).toBeGreaterThanOrEqual(10);
		expect(enrollments.filter((e) => e.status !== 'active').every((e) => e.dueAt === null)).toBe(true);
		// The seed writes history without events: a missed deadline counts as already told, so no
		// server sweeps out a burst of enrollment.overdue for the demo's past.
		expect(overdue.every((e) => e.overdueNotifiedAt?.getTime() === e.dueAt!.getTime())).toBe(true);
		expect(active.filter((e) => !overdue.includes(e)).every((e) => e.overdueNotifiedAt === null)).toBe(true);
	});

	it('acme: at least 40 certificates, each for a completed enrollment of the same student and course', async () => {
		const organizationId = orgId('acme');
		const certificates = await Certificate.findAll({ where: { organizationId } });
		expect(certificates.length).toBeGreaterThanOrEqual(40);
		const enrollments = new Map((await Enrollment.findAll({ where: { organizationId } })).map((e) => [e.id, e]));
		for (const c of certificates) {
			const e = enrollments.get(c.enrollmentId)!;
			expect(e).toMatchObject({ status: 'completed', studentId: c.studentId, courseId: c.courseId });
			expect(c.issuedAt.getTime()).toBe(e.completedAt!.getTime());
			if (c.expiresAt) expect(c.expiresAt.getTime()).toBeGreaterThan(c.issuedAt.getTime());
		}
	});

	it('globex: 1 super_admin, 40 students, 4 published courses of 5, enrollments and certificates', async () => {
		const organizationId = orgId('globex');
		expect(await count(User, { organizationId, role: 'super_admin' })).toBe(1);
		expect(await count(User, { organizationId, role: 'student' })).toBe(40);
		expect(await count(User, { organizationId })).toBe(41);
		expect(await count(Course, { organizationId, status: 'published' })).toBe(4);
		expect(await count(Course, { organizationId })).toBe(5);
		expect(await count(Enrollment, { organizationId })).toBeGreaterThan(0);
		expect(await count(Certificate, { organizationId })).toBeGreaterThan(0);
	});

	it('initech: business plan, 1 super_admin and 10 students', async () => {
		const organizationId = orgId('initech');
		expect((await Organization.findByPk(organizationId))!.plan).toBe('business');
		expect(await count(User, { organizationId, role: 'super_admin' })).toBe(1);
		expect(await count(User, { organizationId, role: 'student' })).toBe(10);
		expect(await count(User, { organizationId })).toBe(11);
	});

	it('only the printed accounts can sign in, with the printed passwords', async () => {
		const all = await User.findAll();
		const signIns = all.filter((u) => u.passwordHash !== null);
		expect(signIns.map((u) => u.email).sort()).toEqual(demo.accounts.map((a) => a.email).sort());
		for (const account of demo.accounts) {
			const user = signIns.find((u) => u.email === account.email)!;
			expect(user.role).toBe(account.role);
			expect(await verifyPassword(account.password, user.passwordHash)).toBe(true);
		}
	});

	it('spreads created_at over past months, every one distinct', async () => {
		// Courses come first (a few weeks), people and their learning follow over months.
		for (const [model, minDays] of [[User, 60], [Course, 14], [Enrollment, 60], [Certificate, 60]] as const) {
			const rows: Array<{ createdAt: Date }> = await (model as typeof User).findAll({ attributes: ['createdAt'] });
			const times = rows.map((r) => r.createdAt.getTime());
			expect(new Set(times).size).toBe(times.length);
			const spanDays = (Math.max(...times) - Math.min(...times)) / 86_400_000;
			expect(spanDays).toBeGreaterThan(minDays);
			expect(Math.max(...times)).toBeLessThanOrEqual(Date.now());
		}
	});

	it('refuses to run a second time, naming the organizations that exist', async () => {
		const again = await runCli(['seed', '--demo', '--json'], { env: { DATABASE_URL: db.databaseUrl } });
		expect(again.code).not.toBe(0);
		expect(again.stdout).toBe('');
		expect(again.stderr).toBe(
			'lms-server: The demo organizations already exist (acme, globex, initech); seed a fresh database instead.\n',
		);
		expect(await count(Organization, {})).toBe(3);
	});

	it('prints tables without --json', async () => {
		const other = await createTestDatabase();
		try {
			const result = await runCli(['seed', '--demo'], { env: { DATABASE_URL: other.databaseUrl } });
			expect(result.code).toBe(0);
			expect(result.stdout).toMatch(/^SLUG\s+ID\s+PLAN$/m);
			expect(result.stdout).toMatch(/^acme\s+super_admin\s+\S+@acme\.test\s+\S+$/m);
		} finally {
			await other.remove();
		}
	});
});

describe('seedDemo', () => {
	// Not timed (speed belongs in bench/): each sign-in account now costs one scrypt at N = 2^17.
	it('hashes every demo sign-in password once, at today\'s scrypt cost, with its own salt', async () => {
		const db = await createTestDatabase();
		const opened = await connect({ databaseUrl: db.databaseUrl });
		try {
			await migrate(opened);
			const demo = await seedDemo();
			const hashes = (await User.findAll({ where: { email: demo.accounts.map((a) => a.email) } })).map((u) => u.passwordHash!);
			expect(hashes).toHaveLength(demo.accounts.length);
			for (const hash of hashes) expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{88}$/);
			expect(new Set(hashes.map((h) => h.split('$')[4])).size).toBe(hashes.length);
		} finally {
			await opened.close();
			await db.remove();
		}
	});
});
