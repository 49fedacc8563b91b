import { Certificate, Course, Enrollment, User } from '../../server/src/db';
import { sweepOverdue } from '../../server/src/enrollments/overdue-sweep';
import { waitUntil } from '../helpers/wait';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

/**
 * GET /api/v1/reports/course_completion (SPEC §17): JSON and CSV, its filter and strict query,
 * and numbers that agree with the rows themselves (the report reads counters the triggers keep and
 * a few index ranges, the oracle here reads every row), also after concurrent writers of every
 * kind (TEST_DATABASE=postgres: they really run at once).
 */

let server: TestServer;
let world: World;
let risky: Course;
const DAY = 86_400_000;

beforeAll(async () => {
	({ server, world } = await startApiServer());
	// A title a spreadsheet would run, with a comma and quotes: the CSV must carry it inert and whole.
	risky = await Course.create({
		organizationId: world.acme.id,
		title: '=HYPERLINK("http://x"), "quoted"',
		description: '',
		status: 'published',
		publishedAt: new Date(),
		createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, 14)),
	});
	const student = async (n: number) =>
		User.create({ organizationId: world.acme.id, name: `Rep ${n}`, email: `rep${n}@acme.example`, role: 'student', passwordHash: null });
	const post = async (body: object) => {
		const reply = await call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.all, body });
		expect(reply.status).toBe(201);
		return reply.body as { id: string };
	};
	const patch = async (id: string, body: object) => expect((await call(server, `/api/v1/enrollments/${id}`, { method: 'PATCH', key: world.keys.all, body })).status).toBe(200);
	// advanced: two overdue, one due later, one completed late, one withdrawn past due (not overdue).
	const overdue1 = await post({ student_id: (await student(1)).id, course_id: world.courses.advanced.id, due_at: '2024-06-01T00:00:00Z' });
	await post({ student_id: (await student(2)).id, course_id: world.courses.advanced.id, due_at: new Date(Date.now() - DAY).toISOString() });
	await post({ student_id: (await student(3)).id, course_id: world.courses.advanced.id, due_at: new Date(Date.now() + 5 * DAY).toISOString() });
	const late = await post({ student_id: (await student(4)).id, course_id: world.courses.advanced.id, due_at: '2024-06-01T00:00:00Z' });
	await patch(late.id, { status: 'completed' });
	const gone = await post({ student_id: (await student(5)).id, course_id: world.courses.advanced.id, due_at: '2024-06-01T00:00:00Z' });
	await patch(gone.id, { status: 'withdrawn' });
	await patch(overdue1.id, { progress_percent: 30 });
	// Certificates of advanced: the late completion's (never expires: the course has no validity),
	// one expiring in 10 days, one in 40 days, one expired yesterday.
	const e = await Enrollment.findByPk(late.id);
	for (const [n, expiresAt] of [[6, new Date(Date.now() + 10 * DAY)], [7, new Date(Date.now() + 40 * DAY)], [8, new Date(Date.now() - DAY)]] as const) {
		const s = await student(n);
		const done = await post({ student_id: s.id, course_id: world.courses.advanced.id });
		await patch(done.id, { status: 'completed' });
		await Certificate.update({ expiresAt }, { where: { enrollmentId: done.id } });
	}
	expect(e).not.toBeNull();
});
afterAll(() => server.stop());

const report = (query = '', options: { key?: string; accept?: string } = {}) =>
	call(server, `/api/v1/reports/course_completion${query}`, { key: options.key ?? world.keys.readEnrollments, headers: options.accept ? { accept: options.accept } : {} });

/** The same numbers, from every row. */
async function oracle() {
	const now = Date.now();
	const courses = await Course.findAll({ where: { organizationId: world.acme.id, status: 'published' }, order: [['createdAt', 'ASC'], ['id', 'ASC']] });
	const enrollments = await Enrollment.findAll({ where: { organizationId: world.acme.id } });
	const certificates = await Certificate.findAll({ where: { organizationId: world.acme.id } });
	return courses.map((c) => {
		const mine = enrollments.filter((e) => e.courseId === c.id);
		const by = (s: string) => mine.filter((e) => e.status === s).length;
		const certs = certificates.filter((x) => x.courseId === c.id);
		const expired = certs.filter((x) => x.expiresAt !== null && x.expiresAt.getTime() <= now).length;
		return {
			course_id: c.id,
			title: c.title,
			enrolled: mine.length,
			active: by('active'),
			completed: by('completed'),
			withdrawn: by('withdrawn'),
			expired: by('expired'),
			overdue: mine.filter((e) => e.status === 'active' && e.dueAt !== null && e.dueAt.getTime() <= now).length,
			completion_rate: mine.length === 0 ? 0 : Math.round((by('completed') / mine.length) * 10_000) / 10_000,
			certificates: {
				valid: certs.length - expired,
				expiring_30d: certs.filter((x) => x.expiresAt !== null && x.expiresAt.getTime() > now && x.expiresAt.getTime() <= now + 30 * DAY).length,
				expired,
			},
		};
	});
}

test('a row per published course, in course order, agreeing with the rows; drafts and other organizations left out', async () => {
	const reply = await report();
	expect(reply.status).toBe(200);
	expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
	expect(Object.keys(reply.body)).toEqual(['data']);
	expect(reply.body.data).toEqual(await oracle());
	expect(reply.body.data.map((r: { course_id: string }) => r.course_id)).toEqual([world.courses.intro.id, world.courses.advanced.id, world.courses.safety.id, risky.id]);
	const advanced = reply.body.data[1];
	expect(advanced).toEqual({
		course_id: world.courses.advanced.id,
		title: 'Advanced',
		enrolled: 9,
		active: 4,
		completed: 4,
		withdrawn: 1,
		expired: 0,
		overdue: 2,
		completion_rate: 0.4444,
		certificates: { valid: 3, expiring_30d: 1, expired: 1 },
	});
	expect(reply.body.data[3]).toMatchObject({ enrolled: 0, completion_rate: 0, certificates: { valid: 0, expiring_30d: 0, expired: 0 } });
	// Globex sees its own course only.
	const globex = await report('', { key: world.keys.globex });
	expect(globex.body.data.map((r: { course_id: string }) => r.course_id)).toEqual([world.globexRecords.course.id]);
});

test('course_id keeps that course; a course that is not a published one of the organization gives no row', async () => {
	const one = await report(`?course_id=${world.courses.advanced.id}`);
	expect(one.body.data).toEqual([(await oracle())[1]]);
	for (const id of [world.courses.draft.id, world.globexRecords.course.id, 'crs_doesnotexist']) {
		const reply = await report(`?course_id=${id}`);
		expect([reply.status, reply.body.data]).toEqual([200, []]);
	}
});

test('Accept: text/csv: a header line, one line per course, certificates flattened, titles inert and whole', async () => {
	const reply = await report('', { accept: 'text/csv' });
	expect(reply.status).toBe(200);
	expect(reply.headers.get('content-type')).toBe('text/csv; charset=utf-8');
	expect(reply.headers.get('content-disposition')).toBe('attachment; filename="course_completion.csv"');
	expect(reply.headers.get('vary')).toMatch(/Accept/);
	const lines = reply.text.split('\r\n');
	expect(lines.pop()).toBe('');
	expect(lines[0]).toBe(
		'course_id,title,enrolled,active,completed,withdrawn,expired,overdue,completion_rate,certificates_valid,certificates_expiring_30d,certificates_expired',
	);
	const json = (await report()).body.data as Array<Record<string, unknown> & { certificates: Record<string, number> }>;
	expect(lines).toHaveLength(1 + json.length);
	expect(lines[2]).toBe(`${world.courses.advanced.id},Advanced,9,4,4,1,0,2,0.4444,3,1,1`);
	expect(lines[4]).toBe(`${risky.id},"'=HYPERLINK(""http://x""), ""quoted""",0,0,0,0,0,0,0,0,0,0`);
	// The same with a course filter, and when the client prefers CSV among others.
	const one = await report(`?course_id=${world.courses.intro.id}`, { accept: 'application/xml;q=0.5, text/csv' });
	expect(one.text.split('\r\n')).toHaveLength(3);
	// JSON unless CSV is preferred.
	expect((await report('', { accept: 'application/json, text/csv;q=0.5' })).headers.get('content-type')).toMatch(/^application\/json/);
	expect((await report('', { accept: '*/*' })).headers.get('content-type')).toMatch(/^application\/json/);
});

test('strict query, scope and errors (problem+json even when CSV was asked for)', async () => {
	for (const query of ['?course_id=nope', '?page=1', '?course_id=a&course_id=b', '?status=active']) {
		const reply = await report(query, { accept: 'text/csv' });
		expectProblem(reply, 400, 'invalid_request');
	}
	expectProblem(await report('', { key: world.keys.readUsers }), 403, 'insufficient_scope');
	expectProblem(await report('', { key: world.keys.initech }), 403, 'plan_required');
	expectProblem(await call(server, '/api/v1/reports/course_completion'), 401, 'missing_api_key');
	expectProblem(await call(server, '/api/v1/reports/course_completion', { method: 'POST', key: world.keys.all, body: {} }), 405, 'method_not_allowed');
});

test('moves with every change at once: an enrollment, a completion, a deadline passing', async () => {
	const s = await User.create({ organizationId: world.acme.id, name: 'Rep 99', email: 'rep99@acme.example', role: 'student', passwordHash: null });
	const created = await call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.all, body: { student_id: s.id, course_id: world.courses.safety.id, due_at: '2024-01-01T00:00:00Z' } });
	expect(created.status).toBe(201);
	expect((await report(`?course_id=${world.courses.safety.id}`)).body.data).toEqual([(await oracle())[2]]);
	expect((await report(`?course_id=${world.courses.safety.id}`)).body.data[0]).toMatchObject({ enrolled: 2, active: 1, overdue: 1 });
	await call(server, `/api/v1/enrollments/${created.body.id}`, { method: 'PATCH', key: world.keys.all, body: { status: 'completed' } });
	expect((await report(`?course_id=${world.courses.safety.id}`)).body.data[0]).toMatchObject({ enrolled: 2, active: 0, completed: 2, overdue: 0, completion_rate: 1 });
	expect((await report()).body.data).toEqual(await oracle());
});

test('stays exact under concurrent enrollments, completions, deadlines passing and moving, sweeps and certificate expiries', async () => {
	const course = world.courses.intro.id;
	const students = await Promise.all(
		Array.from({ length: 24 }, (_, i) => User.create({ organizationId: world.acme.id, name: `Racer ${i}`, email: `racer${i}@acme.example`, role: 'student', passwordHash: null })),
	);
	const soon = Date.now() + 1_500;
	const late = new Date(Date.now() - DAY).toISOString();
	// 24 enrollments at once: a third already late (overdue at once), the rest due in 1.5 s.
	const created = await Promise.all(
		students.map((s, i) =>
			call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.all, body: { student_id: s.id, course_id: course, due_at: i % 3 === 0 ? late : new Date(soon).toISOString() } }),
		),
	);
	expect(created.map((r) => r.status)).toEqual(students.map(() => 201));
	// The deadlines pass: overdue before any sweep has marked them (the report reads the backlog).
	await waitUntil(() => Date.now() > soon, { what: 'the deadlines passing' });
	expect((await report()).body.data).toEqual(await oracle());

	// At once: two sweeps (two instances), and every enrollment changed while they run.
	const future = new Date(Date.now() + 5 * DAY).toISOString();
	const bodies = [{ status: 'completed' }, { due_at: future }, { due_at: null }, { status: 'withdrawn' }, { progress_percent: 50 }, { due_at: late }];
	const ids = created.map((r) => r.body.id as string);
	const changes = await Promise.all([
		sweepOverdue(),
		sweepOverdue(),
		...ids.map((id, i) => call(server, `/api/v1/enrollments/${id}`, { method: 'PATCH', key: world.keys.all, body: bodies[i % bodies.length] })),
	]);
	expect(changes.slice(2).map((r) => (r as { status: number }).status)).toEqual(ids.map(() => 200));
	expect((await report()).body.data).toEqual(await oracle());

	// Then at once: the withdrawn back to active after their deadline, the certificates of the
	// completions given expiries on both sides of now and of the month's start, and a sweep.
	const hour = 3_600_000;
	const expiries = [-40 * DAY, -hour, hour, 29 * DAY, 31 * DAY, null];
	const certificates = await Certificate.findAll({ where: { enrollmentId: ids } });
	expect(certificates.length).toBeGreaterThan(0);
	await Promise.all([
		sweepOverdue(),
		...ids.filter((_, i) => i % bodies.length === 3).map((id) => call(server, `/api/v1/enrollments/${id}`, { method: 'PATCH', key: world.keys.all, body: { status: 'active' } })),
		...certificates.map((c, i) => {
			const offset = expiries[i % expiries.length];
			return Certificate.update({ expiresAt: offset === null ? null : new Date(Date.now() + offset) }, { where: { id: c.id } });
		}),
	]);
	expect((await report()).body.data).toEqual(await oracle());
	await sweepOverdue();
	expect((await report()).body.data).toEqual(await oracle());
}, 60_000);
