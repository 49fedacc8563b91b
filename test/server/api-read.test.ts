import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

let server: TestServer;
let world: World;
beforeAll(async () => ({ server, world } = await startApiServer()));
afterAll(() => server.stop());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const get = (path: string, key = world.keys.all) => call(server, path, { key });
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((r) => r.id);

describe('GET /api/v1/users', () => {
	test('lists the organization users in (created_at, id) order with the envelope', async () => {
		const reply = await get('/api/v1/users');
		expect(reply.status).toBe(200);
		expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
		expect(reply.body.pagination).toEqual({ page: 1, per_page: 50, total: 10 });
		const twins = [world.users.twinA.id, world.users.twinB.id].sort();
		expect(ids(reply.body)).toEqual([
			world.users.superAdmin.id,
			world.users.admin.id,
			world.users.instructor.id,
			world.users.alice.id,
			world.users.bob.id,
			world.users.carol.id,
			world.users.dave.id,
			world.users.erin.id,
			...twins,
		]);
	});

	test('a user has exactly the documented fields', async () => {
		const reply = await get(`/api/v1/users/${world.users.alice.id}`);
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual({
			id: world.users.alice.id,
			name: 'Alice',
			email: 'alice@acme.example',
			username: 'alice@acme.example',
			role: 'student',
			status: 'active',
			external_id: null,
			profile: { title: null, department: null, employee_number: null, manager_id: null },
			created_at: '2024-01-01T00:00:04.000Z',
			updated_at: world.users.alice.updatedAt.toISOString(),
			deactivated_at: null,
		});
	});

	test('email filter is exact and case-insensitive', async () => {
		const reply = await get('/api/v1/users?email=ALICE@Acme.Example');
		expect(ids(reply.body)).toEqual([world.users.alice.id]);
		expect(reply.body.pagination.total).toBe(1);
		expect((await get('/api/v1/users?email=alic@acme.example')).body.data).toEqual([]);
	});

	test('email filter takes up to 100 addresses separated by commas: the users holding any of them, in list order', async () => {
		const { alice, carol, bob } = world.users;
		const reply = await get('/api/v1/users?email=CAROL@acme.example,nobody@acme.example,alice@acme.example,gina@other.example,bob@ACME.example&per_page=100');
		expect(ids(reply.body)).toEqual([alice.id, bob.id, carol.id]);
		expect(reply.body.pagination.total).toBe(3);
		const hundred = [...Array.from({ length: 99 }, (_, i) => `n${i}@acme.example`), 'erin@acme.example'].join(',');
		expect(ids((await get(`/api/v1/users?email=${hundred}`)).body)).toEqual([world.users.erin.id]);
		for (const email of [`${hundred},alice@acme.example`, 'alice@acme.example,', 'alice@acme.example,,bob@acme.example', 'alice@acme.example,not-an-email']) {
			const refused = await get(`/api/v1/users?email=${encodeURIComponent(email)}`);
			expectProblem(refused, 400, 'invalid_request');
			expect(refused.body.errors).toEqual([expect.objectContaining({ param: 'email' })]);
		}
	});

	test('email filter never finds another organization user', async () => {
		expect((await get('/api/v1/users?email=gina@other.example')).body).toEqual({ data: [], pagination: { page: 1, per_page: 50, total: 0 } });
	});

	test.each([
		['student', 7],
		['instructor', 1],
		['admin', 1],
		['super_admin', 1],
	])('role=%s', async (role, count) => {
		const reply = await get(`/api/v1/users?role=${role}`);
		expect(reply.body.data).toHaveLength(count);
		expect(reply.body.data.every((u: { role: string }) => u.role === role)).toBe(true);
	});

	test('filters combine', async () => {
		expect(ids((await get('/api/v1/users?role=student&email=bob@acme.example')).body)).toEqual([world.users.bob.id]);
		expect((await get('/api/v1/users?role=admin&email=bob@acme.example')).body.data).toEqual([]);
	});

	test.each([
		['role=teacher', 'role'],
		['role=', 'role'],
		['email=not-an-email', 'email'],
		['email=', 'email'],
	])('a filter of the wrong shape (%s) → 400 naming it', async (query, param) => {
		const reply = await get(`/api/v1/users?${query}`);
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual([expect.objectContaining({ param, code: expect.any(String), message: expect.any(String) })]);
	});
});

describe('pagination (shared by every list)', () => {
	test('per_page and page walk the list without overlap', async () => {
		const all = ids((await get('/api/v1/users')).body);
		const pages = [];
		for (let page = 1; page <= 4; page++) pages.push(...ids((await get(`/api/v1/users?per_page=3&page=${page}`)).body));
		expect(pages).toEqual(all);
	});

	test('per_page 1 and 100 are accepted', async () => {
		expect((await get('/api/v1/users?per_page=1')).body.pagination).toEqual({ page: 1, per_page: 1, total: 10 });
		expect((await get('/api/v1/users?per_page=100')).body.pagination).toEqual({ page: 1, per_page: 100, total: 10 });
	});

	test('a page past the end is empty with the true total', async () => {
		const reply = await get('/api/v1/users?page=99&per_page=5');
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual({ data: [], pagination: { page: 99, per_page: 5, total: 10 } });
	});

	test.each([
		['per_page=101', 'per_page', 'out_of_range'],
		['per_page=0', 'per_page', 'out_of_range'],
		['per_page=abc', 'per_page', 'invalid_integer'],
		['per_page=-1', 'per_page', 'invalid_integer'],
		['per_page=2.5', 'per_page', 'invalid_integer'],
		['per_page=1e1', 'per_page', 'invalid_integer'],
		['per_page=', 'per_page', 'empty'],
		['page=0', 'page', 'out_of_range'],
		['page=abc', 'page', 'invalid_integer'],
		['page=-3', 'page', 'invalid_integer'],
		['page=1&page=2', 'page', 'repeated_parameter'],
		['per_page=5&per_page=5', 'per_page', 'repeated_parameter'],
		['limit=5', 'limit', 'unknown_parameter'],
		['page[size]=5', 'page[size]', 'unknown_parameter'],
	])('%s → 400 naming %s', async (query, param, code) => {
		for (const list of ['users', 'courses', 'enrollments', 'certificates']) {
			const reply = await get(`/api/v1/${list}?${query}`);
			expectProblem(reply, 400, 'invalid_request');
			expect(reply.body.errors).toEqual([{ param, code, message: expect.any(String) }]);
		}
	});

	test('several bad parameters → one errors[] entry each', async () => {
		const reply = await get('/api/v1/users?page=0&per_page=x&foo=1');
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors.map((e: { param: string }) => e.param).sort()).toEqual(['foo', 'page', 'per_page']);
	});

	test('Link header: absolute first/prev/next/last keeping filters', async () => {
		const reply = await get('/api/v1/users?role=student&per_page=2&page=2');
		const link = reply.headers.get('link')!;
		const base = `${server.baseUrl}/api/v1/users`;
		expect(link).toBe(
			[
				`<${base}?role=student&page=1&per_page=2>; rel="first"`,
				`<${base}?role=student&page=1&per_page=2>; rel="prev"`,
				`<${base}?role=student&page=3&per_page=2>; rel="next"`,
				`<${base}?role=student&page=4&per_page=2>; rel="last"`,
			].join(', '),
		);
	});

	test('Link header on the first and last pages has no prev / no next', async () => {
		const first = (await get('/api/v1/users?per_page=5')).headers.get('link')!;
		expect(first).toContain('rel="first"');
		expect(first).not.toContain('rel="prev"');
		expect(first).toContain('page=2&per_page=5>; rel="next"');
		const last = (await get('/api/v1/users?per_page=5&page=2')).headers.get('link')!;
		expect(last).toContain('page=1&per_page=5>; rel="prev"');
		expect(last).not.toContain('rel="next"');
		expect(last).toContain('page=2&per_page=5>; rel="last"');
	});

	test('Link header of an empty list and of a page past the end', async () => {
		const empty = (await get('/api/v1/users?role=admin&email=nobody@acme.example')).headers.get('link')!;
		expect(empty).not.toMatch(/rel="(prev|next)"/);
		expect(empty).toContain('page=1&per_page=50>; rel="last"');
		const past = (await get('/api/v1/users?page=9&per_page=5')).headers.get('link')!;
		expect(past).toContain('page=2&per_page=5>; rel="prev"');
		expect(past).not.toContain('rel="next"');
	});
});

describe('GET /api/v1/courses', () => {
	test('only published courses, drafts hidden', async () => {
		const reply = await get('/api/v1/courses');
		expect(ids(reply.body)).toEqual([world.courses.intro.id, world.courses.advanced.id, world.courses.safety.id]);
		expect(reply.body.pagination.total).toBe(3);
		expect(reply.body.data[0]).toEqual({
			id: world.courses.intro.id,
			title: 'Intro',
			description: 'Intro description',
			status: 'published',
			published_at: '2024-01-01T00:00:10.000Z',
			created_at: '2024-01-01T00:00:10.000Z',
			updated_at: expect.stringMatching(ISO_MS),
		});
	});

	test('a draft course → 404', async () => {
		expectProblem(await get(`/api/v1/courses/${world.courses.draft.id}`), 404, 'not_found');
	});

	test('a published course by id', async () => {
		expect((await get(`/api/v1/courses/${world.courses.safety.id}`)).body.title).toBe('Safety');
	});

	test('filters are not accepted on courses', async () => {
		const reply = await get('/api/v1/courses?status=draft');
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors[0].param).toBe('status');
	});
});

describe('GET /api/v1/enrollments', () => {
	test('all of the organization, with the documented fields', async () => {
		const reply = await get('/api/v1/enrollments');
		expect(ids(reply.body)).toEqual(world.enrollments.map((e) => e.id));
		const [first] = reply.body.data;
		expect(first).toEqual({
			id: world.enrollments[0].id,
			student_id: world.users.alice.id,
			course_id: world.courses.intro.id,
			status: 'completed',
			progress_percent: 100,
			enrolled_at: '2024-01-01T00:00:20.000Z',
			completed_at: '2024-01-01T00:02:00.000Z',
			due_at: null,
			overdue: false,
			assignment_id: null,
			created_at: '2024-01-01T00:00:20.000Z',
			updated_at: expect.stringMatching(ISO_MS),
		});
		expect(reply.body.data[1].completed_at).toBeNull();
	});

	test('filters student_id, course_id, status, and their combination', async () => {
		const e = world.enrollments;
		expect(ids((await get(`/api/v1/enrollments?student_id=${world.users.alice.id}`)).body)).toEqual([e[0].id, e[1].id]);
		expect(ids((await get(`/api/v1/enrollments?course_id=${world.courses.intro.id}`)).body)).toEqual([e[0].id, e[2].id, e[3].id]);
		expect(ids((await get('/api/v1/enrollments?status=completed')).body)).toEqual([e[0].id, e[4].id]);
		expect(ids((await get('/api/v1/enrollments?status=withdrawn')).body)).toEqual([e[2].id]);
		expect(ids((await get('/api/v1/enrollments?status=expired')).body)).toEqual([e[3].id]);
		expect(ids((await get('/api/v1/enrollments?status=active')).body)).toEqual([e[1].id]);
		expect(ids((await get(`/api/v1/enrollments?student_id=${world.users.carol.id}&course_id=${world.courses.safety.id}&status=completed`)).body)).toEqual([e[4].id]);
	});

	test.each([
		['student_id=alice', 'student_id'],
		[`student_id=CRS`, 'student_id'],
		['course_id=usr_abc', 'course_id'],
		['status=done', 'status'],
	])('%s → 400 naming %s', async (query, param) => {
		const reply = await get(`/api/v1/enrollments?${query}`);
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual([expect.objectContaining({ param })]);
	});

	test('an enrollment by id', async () => {
		expect((await get(`/api/v1/enrollments/${world.enrollments[2].id}`)).body.status).toBe('withdrawn');
	});
});

describe('GET /api/v1/certificates', () => {
	test('all, with the documented fields', async () => {
		const reply = await get('/api/v1/certificates');
		expect(ids(reply.body)).toEqual(world.certificates.map((c) => c.id));
		expect(reply.body.data[0]).toEqual({
			id: world.certificates[0].id,
			student_id: world.users.alice.id,
			course_id: world.courses.intro.id,
			enrollment_id: world.enrollments[0].id,
			issued_at: '2024-01-01T00:00:30.000Z',
			expires_at: null,
			verification_code: world.certificates[0].verificationCode,
		});
		expect(reply.body.data[1].expires_at).toMatch(ISO_MS);
	});

	test('filters student_id and course_id', async () => {
		expect(ids((await get(`/api/v1/certificates?student_id=${world.users.carol.id}`)).body)).toEqual([world.certificates[1].id]);
		expect(ids((await get(`/api/v1/certificates?course_id=${world.courses.intro.id}`)).body)).toEqual([world.certificates[0].id]);
		expect((await get(`/api/v1/certificates?student_id=${world.users.bob.id}`)).body.data).toEqual([]);
	});

	test('status is not a certificate filter', async () => {
		expectProblem(await get('/api/v1/certificates?status=active'), 400, 'invalid_request');
	});

	test('a certificate by id', async () => {
		expect((await get(`/api/v1/certificates/${world.certificates[1].id}`)).body.enrollment_id).toBe(world.enrollments[4].id);
	});
});

describe('single GETs: unknown, malformed and foreign ids all answer 404', () => {
	test.each(['users', 'courses', 'enrollments', 'certificates'])('%s', async (list) => {
		const prefix = { users: 'usr', courses: 'crs', enrollments: 'enr', certificates: 'cert' }[list];
		expectProblem(await get(`/api/v1/${list}/${prefix}_doesNotExist0`), 404, 'not_found');
		expectProblem(await get(`/api/v1/${list}/not-an-id`), 404, 'not_found');
		expectProblem(await get(`/api/v1/${list}/%E0%A4%A`), 404, 'not_found');
	});
});

describe('cross-organization isolation', () => {
	test('another organization records answer 404 by id, never 403', async () => {
		const g = world.globexRecords;
		for (const path of [
			`/api/v1/users/${g.student.id}`,
			`/api/v1/courses/${g.course.id}`,
			`/api/v1/courses/${g.draft.id}`,
			`/api/v1/enrollments/${g.enrollment.id}`,
			`/api/v1/certificates/${g.certificate.id}`,
		]) {
			expectProblem(await get(path), 404, 'not_found');
		}
	});

	test('and the other way round', async () => {
		for (const path of [
			`/api/v1/users/${world.users.alice.id}`,
			`/api/v1/courses/${world.courses.intro.id}`,
			`/api/v1/enrollments/${world.enrollments[0].id}`,
			`/api/v1/certificates/${world.certificates[0].id}`,
		]) {
			expectProblem(await get(path, world.keys.globex), 404, 'not_found');
		}
	});

	test('lists show only the caller organization, even when filtering by a foreign id', async () => {
		const g = world.globexRecords;
		const globex = (path: string) => get(path, world.keys.globex);
		expect(ids((await globex('/api/v1/users')).body)).toEqual([g.student.id]);
		expect(ids((await globex('/api/v1/courses')).body)).toEqual([g.course.id]);
		expect(ids((await globex('/api/v1/enrollments')).body)).toEqual([g.enrollment.id]);
		expect(ids((await globex('/api/v1/certificates')).body)).toEqual([g.certificate.id]);
		expect((await get(`/api/v1/enrollments?student_id=${g.student.id}`)).body.data).toEqual([]);
		expect((await get(`/api/v1/enrollments?course_id=${g.course.id}`)).body.data).toEqual([]);
		expect((await get(`/api/v1/certificates?student_id=${g.student.id}`)).body.data).toEqual([]);
		expect((await get(`/api/v1/certificates?course_id=${g.course.id}`)).body.data).toEqual([]);
	});
});

test('HEAD on a list answers like GET without a body', async () => {
	const reply = await call(server, '/api/v1/courses', { method: 'HEAD', key: world.keys.all });
	expect(reply.status).toBe(200);
	expect(reply.text).toBe('');
	expect(reply.headers.get('link')).toContain('rel="first"');
});
