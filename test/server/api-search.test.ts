import { Course } from '../../server/src/courses/model';
import { User } from '../../server/src/users/model';
import { runCli } from '../helpers/cli';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

/** SPEC §13: search by prefix on users and courses, the certificate expiry window. */

let server: TestServer;
let world: World;
const extra: Record<string, User> = {};
beforeAll(async () => {
	({ server, world } = await startApiServer());
	const at = (n: number) => new Date(Date.UTC(2024, 0, 2, 0, 0, n));
	const user = (n: number, name: string, email: string, role: User['role'], organizationId = world.acme.id) =>
		User.create({ organizationId, name, email, role, passwordHash: null, createdAt: at(n) });
	extra.lovelace = await user(1, 'Augusta Ada Lovelace', 'countess@acme.example', 'instructor');
	extra.hopper = await user(2, 'Grace Brewster Hopper', 'grace.hopper@acme.example', 'student');
	extra.loveday = await user(3, 'Sam LOVEDAY', 'sl@acme.example', 'student');
	extra.lovell = await user(4, 'Jim Lovell', 'jim@acme.example', 'student');
	extra.percent = await user(5, 'Per Cent', 'a_b%c@acme.example', 'student');
	// Another organization's users with matching names and e-mails are never found.
	extra.otherLove = await user(6, 'Other Lovelace', 'love@other.example', 'student', world.globex.id);
	await Course.create({ organizationId: world.acme.id, title: 'Fire Safety Basics', description: '', status: 'published', publishedAt: at(7), createdAt: at(7) });
	await Course.create({ organizationId: world.acme.id, title: 'Safety draft', description: '', status: 'draft', publishedAt: null, createdAt: at(8) });
	await Course.create({ organizationId: world.globex.id, title: 'Safety elsewhere', description: '', status: 'published', publishedAt: at(9), createdAt: at(9) });
});
afterAll(() => server.stop());

const get = (path: string, key = world.keys.all) => call(server, path, { key });
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((r) => r.id);

describe('GET /api/v1/users?search=', () => {
	test('by e-mail prefix, ignoring case', async () => {
		const reply = await get('/api/v1/users?search=GRACE.HOP');
		expect(reply.status).toBe(200);
		expect(ids(reply.body)).toEqual([extra.hopper.id]);
		expect(reply.body.pagination).toEqual({ page: 1, per_page: 50, total: 1 });
	});

	test('by a later word of the name, ignoring case, in (created_at, id) order', async () => {
		expect(ids((await get('/api/v1/users?search=brew')).body)).toEqual([extra.hopper.id]);
		const love = await get('/api/v1/users?search=lOvE');
		expect(ids(love.body)).toEqual([extra.lovelace.id, extra.loveday.id, extra.lovell.id]);
		expect(love.body.pagination.total).toBe(3);
		// A word must start with the text: "ace" is inside "Lovelace", not at a word's start.
		expect((await get('/api/v1/users?search=ace')).body.data).toEqual([]);
		// Several words find the name they start in.
		expect(ids((await get('/api/v1/users?search=ada%20love')).body)).toEqual([extra.lovelace.id]);
	});

	test('combines with role and email', async () => {
		expect(ids((await get('/api/v1/users?search=love&role=student')).body)).toEqual([extra.loveday.id, extra.lovell.id]);
		expect(ids((await get('/api/v1/users?search=love&role=instructor')).body)).toEqual([extra.lovelace.id]);
		expect(ids((await get('/api/v1/users?search=love&email=jim@acme.example')).body)).toEqual([extra.lovell.id]);
		expect((await get('/api/v1/users?search=love&role=admin')).body).toEqual({ data: [], pagination: { page: 1, per_page: 50, total: 0 } });
	});

	test('pagination and total are exact, and Link keeps the search', async () => {
		const first = await get('/api/v1/users?search=love&per_page=2');
		expect(ids(first.body)).toEqual([extra.lovelace.id, extra.loveday.id]);
		expect(first.body.pagination).toEqual({ page: 1, per_page: 2, total: 3 });
		expect(first.headers.get('link')).toContain('search=love');
		const second = await get('/api/v1/users?search=love&per_page=2&page=2');
		expect(ids(second.body)).toEqual([extra.lovell.id]);
		expect(second.body.pagination).toEqual({ page: 2, per_page: 2, total: 3 });
	});

	test('no match is an empty page with total 0; LIKE wildcards are plain characters', async () => {
		expect((await get('/api/v1/users?search=zzz')).body).toEqual({ data: [], pagination: { page: 1, per_page: 50, total: 0 } });
		expect(ids((await get('/api/v1/users?search=a_b%25')).body)).toEqual([extra.percent.id]);
		expect((await get('/api/v1/users?search=%25')).body.pagination.total).toBe(0);
		expect((await get('/api/v1/users?search=_')).body.pagination.total).toBe(0);
	});

	test("another organization's users are never found", async () => {
		const reply = await get('/api/v1/users?search=other');
		expect(reply.body.pagination.total).toBe(0);
		expect(ids((await get('/api/v1/users?search=love')).body)).not.toContain(extra.otherLove.id);
		expect(ids((await get('/api/v1/users?search=love', world.keys.globex)).body)).toEqual([extra.otherLove.id]);
	});

	test.each([
		['search=', 'search'],
		[`search=${'a'.repeat(101)}`, 'search'],
	])('a search of the wrong length (%s) → 400 naming it', async (query, param) => {
		const reply = await get(`/api/v1/users?${query}`);
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual([expect.objectContaining({ param, code: expect.any(String), message: expect.stringContaining('1 to 100') })]);
	});

	test('100 characters are accepted', async () => {
		const reply = await get(`/api/v1/users?search=${'a'.repeat(100)}`);
		expect(reply.body).toEqual({ data: [], pagination: { page: 1, per_page: 50, total: 0 } });
	});

	test('a user created later through the CLI is found', async () => {
		expect((await get('/api/v1/users?search=quintessa')).body.pagination.total).toBe(0);
		const result = await runCli(['users', 'create', '--org', 'acme', '--email', 'q@acme.example', '--name', 'Mary Quintessa Jones', '--role', 'student', '--json'], {
			env: { DATABASE_URL: server.databaseUrl },
		});
		expect(result).toMatchObject({ code: 0 });
		const created = JSON.parse(result.stdout) as { id: string };
		expect(ids((await get('/api/v1/users?search=Quint')).body)).toEqual([created.id]);
	});
});

describe('GET /api/v1/courses?search=', () => {
	test('a word of a published title, ignoring case; drafts and other organizations never', async () => {
		const reply = await get('/api/v1/courses?search=SAF');
		const titles = reply.body.data.map((c: { title: string }) => c.title);
		expect(titles).toEqual(['Safety', 'Fire Safety Basics']);
		expect(reply.body.pagination.total).toBe(2);
		expect((await get('/api/v1/courses?search=basics')).body.data.map((c: { title: string }) => c.title)).toEqual(['Fire Safety Basics']);
		expect((await get('/api/v1/courses?search=draft')).body.pagination.total).toBe(0);
		expect((await get('/api/v1/courses?search=elsewhere')).body.pagination.total).toBe(0);
		expectProblem(await get('/api/v1/courses?search='), 400, 'invalid_request');
	});
});

describe('GET /api/v1/certificates?expires_before=&expires_after=', () => {
	// world.certificates[1] expires on 2024-04-25; [0] and Globex's never expire.
	test('a window keeps the certificates expiring inside it, never one that never expires', async () => {
		const expiring = world.certificates[1].id;
		expect(ids((await get('/api/v1/certificates?expires_before=2024-05-01T00:00:00Z')).body)).toEqual([expiring]);
		expect(ids((await get('/api/v1/certificates?expires_after=2024-04-01T00:00:00%2B02:00')).body)).toEqual([expiring]);
		expect(ids((await get('/api/v1/certificates?expires_after=2024-04-01T00:00:00Z&expires_before=2024-05-01T00:00:00Z')).body)).toEqual([expiring]);
		const none = await get('/api/v1/certificates?expires_after=2024-05-01T00:00:00Z');
		expect(none.body).toEqual({ data: [], pagination: { page: 1, per_page: 50, total: 0 } });
		expect((await get('/api/v1/certificates?expires_before=2024-04-01T00:00:00Z')).body.pagination.total).toBe(0);
		// Bounds are excluded.
		const expiresAt = world.certificates[1].expiresAt!;
		const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
		expect((await get(`/api/v1/certificates?expires_before=${iso(expiresAt.getTime())}`)).body.pagination.total).toBe(0);
		expect((await get(`/api/v1/certificates?expires_after=${iso(expiresAt.getTime())}`)).body.pagination.total).toBe(0);
		expect((await get(`/api/v1/certificates?expires_before=${iso(expiresAt.getTime() + 1)}`)).body.pagination.total).toBe(1);
		expect((await get(`/api/v1/certificates?expires_after=${iso(expiresAt.getTime() - 1)}`)).body.pagination.total).toBe(1);
		// Combines with course_id.
		expect(ids((await get(`/api/v1/certificates?expires_before=2030-01-01T00:00:00Z&course_id=${world.courses.safety.id}`)).body)).toEqual([expiring]);
		expect((await get(`/api/v1/certificates?expires_before=2030-01-01T00:00:00Z&course_id=${world.courses.intro.id}`)).body.pagination.total).toBe(0);
		expect((await get('/api/v1/certificates?expires_before=2999-01-01T00:00:00Z', world.keys.globex)).body.pagination.total).toBe(0);
	});

	test.each([
		['expires_before=tomorrow', 'expires_before'],
		['expires_before=2024-05-01', 'expires_before'],
		['expires_after=2024-02-30T00:00:00Z', 'expires_after'],
		['expires_after=2024-05-01T00:00:00', 'expires_after'],
		['expires_after=', 'expires_after'],
	])('a bad date-time (%s) → 400 naming it', async (query, param) => {
		const reply = await get(`/api/v1/certificates?${query}`);
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual([expect.objectContaining({ param, code: expect.any(String), message: expect.any(String) })]);
	});
});

describe('GET /api/v1/certificates?verification_code=', () => {
	// What an HR person checking a certificate has in hand: the code printed on it.
	test('the one certificate carrying the code, whatever its case; other organizations never', async () => {
		const certificate = world.certificates[1];
		const code = certificate.verificationCode;
		const exact = await get(`/api/v1/certificates?verification_code=${code}`);
		expect(exact.status).toBe(200);
		expect(exact.body.data).toEqual([expect.objectContaining({ id: certificate.id, verification_code: code })]);
		expect(exact.body.pagination).toEqual({ page: 1, per_page: 50, total: 1 });
		expect(ids((await get(`/api/v1/certificates?verification_code=${code.toLowerCase()}`)).body)).toEqual([certificate.id]);
		// Combines with the other filters.
		expect(ids((await get(`/api/v1/certificates?verification_code=${code}&course_id=${certificate.courseId}`)).body)).toEqual([certificate.id]);
		expect((await get(`/api/v1/certificates?verification_code=${code}&course_id=${world.courses.intro.id}`)).body.pagination.total).toBe(0);
		// Globex's code from an Acme key, and an unknown code: an empty list, never another's record.
		const globexCode = world.globexRecords.certificate.verificationCode;
		expect((await get(`/api/v1/certificates?verification_code=${globexCode}`)).body).toEqual({ data: [], pagination: { page: 1, per_page: 50, total: 0 } });
		expect(ids((await get(`/api/v1/certificates?verification_code=${globexCode}`, world.keys.globex)).body)).toEqual([world.globexRecords.certificate.id]);
		expect((await get('/api/v1/certificates?verification_code=NOSUCHCODE00')).body.pagination.total).toBe(0);
	});

	test.each([['verification_code='], ['verification_code=AB-CD'], ['verification_code=%25'], [`verification_code=${'A'.repeat(21)}`], ['verification_code=A&verification_code=B']])(
		'a bad code (%s) → 400 naming verification_code',
		async (query) => {
			const reply = await get(`/api/v1/certificates?${query}`);
			expectProblem(reply, 400, 'invalid_request');
			expect(reply.body.errors).toEqual([expect.objectContaining({ param: 'verification_code', code: expect.any(String), message: expect.stringContaining('verification_code') })]);
		},
	);
});
