import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

/**
 * What the n8n pickers of enrollments and certificates need from their lists (issue 29): a
 * search by the student's name or e-mail or the course's title, newest first, and the names
 * embedded so that a row reads "Alice — Intro" without a request per row.
 */

let server: TestServer;
let world: World;
beforeAll(async () => {
	({ server, world } = await startApiServer());
});
afterAll(() => server.stop());

const get = (path: string, key = world.keys.all) => call(server, path, { key });
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((r) => r.id);
const enrollment = (i: number) => world.enrollments[i].id;

describe('GET /api/v1/enrollments: search, sort, expand', () => {
	test("search finds the student's name or e-mail and the course's title, any case, in list order", async () => {
		const byStudent = await get('/api/v1/enrollments?search=ALI');
		expect(byStudent.status).toBe(200);
		expect(ids(byStudent.body)).toEqual([enrollment(0), enrollment(1)]);
		expect(byStudent.body.pagination).toEqual({ page: 1, per_page: 50, total: 2 });
		expect(ids((await get('/api/v1/enrollments?search=carol@acme')).body)).toEqual([enrollment(3), enrollment(4)]);
		expect(ids((await get('/api/v1/enrollments?search=intr')).body)).toEqual([enrollment(0), enrollment(2), enrollment(3)]);
		// Alice and Advanced both match enrollment 1: each enrollment once, total exact.
		const both = await get('/api/v1/enrollments?search=a');
		expect(ids(both.body)).toEqual([enrollment(0), enrollment(1)]);
		expect(both.body.pagination.total).toBe(2);
		// Combines with the other filters.
		expect(ids((await get('/api/v1/enrollments?search=intro&status=completed')).body)).toEqual([enrollment(0)]);
		expect(ids((await get(`/api/v1/enrollments?search=intro&student_id=${world.users.bob.id}`)).body)).toEqual([enrollment(2)]);
		expect((await get('/api/v1/enrollments?search=zzz')).body).toEqual({ data: [], pagination: { page: 1, per_page: 50, total: 0 } });
	});

	test("another organization's students and courses are never found", async () => {
		expect((await get('/api/v1/enrollments?search=gina')).body.pagination.total).toBe(0);
		expect((await get('/api/v1/enrollments?search=globex')).body.pagination.total).toBe(0);
		expect(ids((await get('/api/v1/enrollments?search=gina', world.keys.globex)).body)).toEqual([world.globexRecords.enrollment.id]);
		expect((await get('/api/v1/enrollments?search=alice', world.keys.globex)).body.pagination.total).toBe(0);
	});

	test('sort=-created_at lists newest first, pages stay exact, and Link keeps sort, search and expand', async () => {
		expect(ids((await get('/api/v1/enrollments?sort=-created_at')).body)).toEqual([4, 3, 2, 1, 0].map(enrollment));
		expect(ids((await get('/api/v1/enrollments?sort=created_at')).body)).toEqual([0, 1, 2, 3, 4].map(enrollment));
		const first = await get('/api/v1/enrollments?search=intro&sort=-created_at&expand=student&per_page=2');
		expect(ids(first.body)).toEqual([enrollment(3), enrollment(2)]);
		expect(first.body.pagination).toEqual({ page: 1, per_page: 2, total: 3 });
		const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1];
		expect(new URL(next).searchParams.get('sort')).toBe('-created_at');
		expect(new URL(next).searchParams.get('search')).toBe('intro');
		expect(new URL(next).searchParams.get('expand')).toBe('student');
		expect(ids((await get(new URL(next).pathname + new URL(next).search)).body)).toEqual([enrollment(0)]);
	});

	test('expand=student,course embeds who and what; without it the items are as before', async () => {
		const reply = await get('/api/v1/enrollments?expand=student,course&sort=-created_at&per_page=1');
		expect(reply.body.data).toEqual([
			expect.objectContaining({
				id: enrollment(4),
				student: { id: world.users.carol.id, name: 'Carol', email: 'carol@acme.example' },
				course: { id: world.courses.safety.id, title: 'Safety' },
			}),
		]);
		const onlyCourse = (await get('/api/v1/enrollments?expand=course&per_page=1')).body.data[0];
		expect(onlyCourse.course).toEqual({ id: world.courses.intro.id, title: 'Intro' });
		expect(onlyCourse).not.toHaveProperty('student');
		const plain = (await get('/api/v1/enrollments?per_page=1')).body.data[0];
		expect(plain).not.toHaveProperty('student');
		expect(plain).not.toHaveProperty('course');
	});

	test.each([
		['sort=newest', 'sort'],
		['sort=-id', 'sort'],
		['sort=', 'sort'],
		['expand=teacher', 'expand'],
		['expand=student,', 'expand'],
		['expand=', 'expand'],
		['search=', 'search'],
		[`search=${'a'.repeat(101)}`, 'search'],
		['sort=created_at&sort=-created_at', 'sort'],
	])('%s → 400 naming %s', async (query, param) => {
		const reply = await get(`/api/v1/enrollments?${query}`);
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual([expect.objectContaining({ param, code: expect.any(String), message: expect.stringContaining(param) })]);
	});
});

describe('GET /api/v1/certificates: search, sort, expand', () => {
	test('search by student or course, newest first, with names', async () => {
		const [introCertificate, safetyCertificate] = world.certificates;
		expect(ids((await get('/api/v1/certificates?search=carol')).body)).toEqual([safetyCertificate.id]);
		expect(ids((await get('/api/v1/certificates?search=intro')).body)).toEqual([introCertificate.id]);
		expect(ids((await get('/api/v1/certificates?sort=-created_at')).body)).toEqual([safetyCertificate.id, introCertificate.id]);
		expect((await get('/api/v1/certificates?search=gina')).body.pagination.total).toBe(0);
		const reply = await get('/api/v1/certificates?search=alice&expand=student,course');
		expect(reply.body.data).toEqual([
			expect.objectContaining({
				id: introCertificate.id,
				verification_code: introCertificate.verificationCode,
				student: { id: world.users.alice.id, name: 'Alice', email: 'alice@acme.example' },
				course: { id: world.courses.intro.id, title: 'Intro' },
			}),
		]);
		expectProblem(await get('/api/v1/certificates?sort=oldest'), 400, 'invalid_request');
		expectProblem(await get('/api/v1/certificates?expand=enrollment'), 400, 'invalid_request');
	});
});
