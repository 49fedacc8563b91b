import { createKey } from '../../server/src/api-keys/lifecycle';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

/**
 * Issue 39 L2: students' names and e-mails are roster data, gated by read:users (SPEC §5), so a
 * key with read:enrollments alone reaches them neither through `expand=student` nor through a
 * `search` that matches them, on enrollments and certificates alike.
 */

let server: TestServer;
let world: World;
let enrollmentsAndUsers: string;
beforeAll(async () => {
	({ server, world } = await startApiServer());
	({ secret: enrollmentsAndUsers } = await createKey({
		organizationId: world.acme.id,
		label: 'enrollments and users',
		scopes: ['read:enrollments', 'read:users'],
		actor: { kind: 'cli' },
	}));
});
afterAll(() => server.stop());

const get = (path: string, key: string) => call(server, path, { key });
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((r) => r.id);

describe.each(['enrollments', 'certificates'])('/api/v1/%s', (list) => {
	test('expand=student without read:users: 403 insufficient_scope naming read:users', async () => {
		for (const expand of ['student', 'course,student', 'student,course']) {
			const reply = await get(`/api/v1/${list}?expand=${expand}`, world.keys.readEnrollments);
			expectProblem(reply, 403, 'insufficient_scope');
			expect(reply.body.required_scope).toBe('read:users');
			expect(reply.body.detail).toContain('read:users');
			expect(reply.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="read:users"');
			expect(reply.text).not.toMatch(/alice@acme/);
		}
	});

	test('expand=course needs nothing more; expand=student with read:users shows the student', async () => {
		const courses = await get(`/api/v1/${list}?expand=course`, world.keys.readEnrollments);
		expect(courses.status).toBe(200);
		expect(courses.body.data[0].course).toEqual({ id: expect.stringMatching(/^crs_/), title: expect.any(String) });
		const students = await get(`/api/v1/${list}?expand=student`, enrollmentsAndUsers);
		expect(students.status).toBe(200);
		expect(students.body.data[0].student).toEqual({ id: world.users.alice.id, name: 'Alice', email: 'alice@acme.example' });
	});

	test("search matches the student's name and e-mail only with read:users; the course's title always", async () => {
		const mine = list === 'enrollments' ? world.enrollments : world.certificates;
		const alices = mine.filter((r) => r.studentId === world.users.alice.id).map((r) => r.id);
		const intro = mine.filter((r) => r.courseId === world.courses.intro.id).map((r) => r.id);
		expect(alices.length).toBeGreaterThan(0);
		for (const search of ['alice', 'ALICE%40acme', 'alice%40acme.example']) {
			expect(ids((await get(`/api/v1/${list}?search=${search}`, enrollmentsAndUsers)).body)).toEqual(alices);
			expect((await get(`/api/v1/${list}?search=${search}`, world.keys.all)).body.pagination.total).toBe(alices.length);
			// The general read (a filter beside the search) and the search's own read answer alike.
			for (const extra of ['', `&course_id=${world.courses.intro.id}`, '&sort=-created_at', '&page=2&per_page=1']) {
				const reply = await get(`/api/v1/${list}?search=${search}${extra}`, world.keys.readEnrollments);
				expect(reply.status).toBe(200);
				expect(reply.body.data).toEqual([]);
				expect(reply.body.pagination.total).toBe(0);
			}
		}
		const byTitle = await get(`/api/v1/${list}?search=intro`, world.keys.readEnrollments);
		expect(ids(byTitle.body)).toEqual(intro);
		expect(byTitle.body.pagination.total).toBe(intro.length);
	});
});
