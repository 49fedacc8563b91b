import { Op } from 'sequelize';

import { createKey } from '../../server/src/api-keys/lifecycle';
import { Certificate, Course, Enrollment, User } from '../../server/src/db';
import { hashPassword } from '../../server/src/users/password';
import { PageClient } from '../helpers/page-client';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, feedCaughtUp, startApiServer, type Reply, type World } from './api-fixtures';

/** POST and PATCH /api/v1/users (SPEC §16): provisioning, its rules, its events, and one-step offboarding. */

let server: TestServer;
let world: World;
let writeUsers: string;
beforeAll(async () => {
	({ server, world } = await startApiServer());
	writeUsers = (await createKey({ organizationId: world.acme.id, label: 'hr sync', scopes: ['write:users'], actor: { kind: 'cli' } })).secret;
});
afterAll(() => server.stop());

let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
const post = (body: unknown, key = writeUsers, headers: Record<string, string> = {}) => call(server, '/api/v1/users', { method: 'POST', key, body, headers });
const patch = (id: string, body: unknown, key = writeUsers, headers: Record<string, string> = {}) =>
	call(server, `/api/v1/users/${id}`, { method: 'PATCH', key, body, headers });
const get = async (path: string) => (await call(server, path, { key: world.keys.all })).body;

async function newUser(extra: Record<string, unknown> = {}): Promise<Reply> {
	const id = unique('u');
	const reply = await post({ name: `New ${id}`, email: `${id}@acme.example`, ...extra });
	expect(reply.status).toBe(201);
	return reply;
}

/** Every event of acme after `after` (the feed served up to date), oldest first. */
async function eventsSince(after: string | null): Promise<Array<{ id: string; type: string; data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> } }>> {
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const out = [];
	for (let cursor = after; ; ) {
		const reply = await call(server, `/api/v1/events?limit=100${cursor ? `&after=${cursor}` : ''}`, { key: world.keys.all });
		expect(reply.status).toBe(200);
		out.push(...reply.body.data);
		if (!reply.body.has_more) break;
		cursor = reply.body.data[reply.body.data.length - 1].id;
	}
	return out;
}

async function head(): Promise<string | null> {
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	return (await get('/api/v1/events/head')).after;
}

describe('POST /api/v1/users', () => {
	test('creates an active student: 201, Location, the record as GET shows it, one user.created', async () => {
		const before = await head();
		const reply = await post({ name: 'Grace Hopper', email: 'Grace.Hopper@acme.example', external_id: 'EMP-0042' });
		expect(reply.status).toBe(201);
		expect(reply.body).toEqual({
			id: expect.stringMatching(/^usr_/),
			name: 'Grace Hopper',
			email: 'Grace.Hopper@acme.example',
			username: 'Grace.Hopper@acme.example',
			role: 'student',
			status: 'active',
			external_id: 'EMP-0042',
			profile: { title: null, department: null, employee_number: null, manager_id: null },
			created_at: expect.stringMatching(/Z$/),
			updated_at: expect.stringMatching(/Z$/),
			deactivated_at: null,
		});
		expect(reply.headers.get('location')).toBe(`/api/v1/users/${reply.body.id}`);
		expect(await get(`/api/v1/users/${reply.body.id}`)).toEqual(reply.body);
		const events = await eventsSince(before);
		expect(events.map((e) => [e.type, e.data.object])).toEqual([['user.created', reply.body]]);
	});

	test('role is student by default, instructor when asked; admin and super_admin are 422 role_not_allowed', async () => {
		expect((await newUser()).body.role).toBe('student');
		expect((await newUser({ role: 'instructor' })).body.role).toBe('instructor');
		for (const role of ['admin', 'super_admin']) {
			const email = `${unique('boss')}@acme.example`;
			const reply = await post({ name: 'Boss', email, role });
			expectProblem(reply, 422, 'role_not_allowed');
			expect(reply.body.errors).toEqual([expect.objectContaining({ param: 'role' })]);
			expect(await User.count({ where: { emailLower: email } })).toBe(0);
		}
		expectProblem(await post({ name: 'X', email: `${unique('x')}@acme.example`, role: 'owner' }), 400, 'invalid_request');
	});

	test('bad bodies are 400 naming each field, and create nothing', async () => {
		const count = await User.count();
		for (const [body, params] of [
			[{}, ['name', 'email']],
			[{ name: 'A', email: 'not-an-email' }, ['email']],
			[{ name: '', email: 'a1@acme.example' }, ['name']],
			[{ name: 'Tab\there', email: 'a2@acme.example' }, ['name']],
			[{ name: 'A', email: 'a3@acme.example', external_id: '' }, ['external_id']],
			[{ name: 'A', email: 'a4@acme.example', external_id: 'x'.repeat(256) }, ['external_id']],
			[{ name: 'A', email: 'a5@acme.example', external_id: 'line\nbreak' }, ['external_id']],
			[{ name: 'A', email: 'a6@acme.example', external_id: 42 }, ['external_id']],
			[{ name: 'A', email: 'a7@acme.example', status: 'active' }, ['status']],
			[{ name: 'A', email: 'a8@acme.example', password: 'hunter22' }, ['password']],
		] as Array<[object, string[]]>) {
			const reply = await post(body);
			expectProblem(reply, 400, 'invalid_request');
			expect(reply.body.errors.map((e: { param: string }) => e.param)).toEqual(params);
		}
		expect(await User.count()).toBe(count);
	});

	test('an external_id of 255 printable characters (any script) is kept exactly', async () => {
		const externalId = `ü ${'9'.repeat(250)} Ω`.slice(0, 255);
		expect((await newUser({ external_id: externalId })).body.external_id).toBe(externalId);
		expect((await newUser({ external_id: null })).body.external_id).toBeNull();
	});

	test('a taken e-mail (any case) is 409 email_taken naming the user; a taken external_id is 409 external_id_taken', async () => {
		const first = await newUser({ external_id: unique('ext') });
		const sameEmail = await post({ name: 'Twin', email: first.body.email.toUpperCase() });
		expectProblem(sameEmail, 409, 'email_taken');
		expect(sameEmail.body.user_id).toBe(first.body.id);
		expect(sameEmail.body.detail).toContain(`/api/v1/users/${first.body.id}`);

		const sameExternal = await post({ name: 'Twin', email: `${unique('other')}@acme.example`, external_id: first.body.external_id });
		expectProblem(sameExternal, 409, 'external_id_taken');
		expect(sameExternal.body.user_id).toBe(first.body.id);
	});

	test('e-mail and external id are unique within an organization, not across organizations', async () => {
		const email = `${unique('shared')}@example.com`;
		const here = await newUser({ email, external_id: unique('shared-ext') });
		const globexKey = (await createKey({ organizationId: world.globex.id, label: 'g', scopes: ['write:users'], actor: { kind: 'cli' } })).secret;
		const there = await post({ name: 'Elsewhere', email, external_id: here.body.external_id }, globexKey);
		expect(there.status).toBe(201);
		expect(there.body.id).not.toBe(here.body.id);
	});

	test('needs write:users; read:users is not enough', async () => {
		const reply = await post({ name: 'A', email: `${unique('scope')}@acme.example` }, world.keys.readUsers);
		expectProblem(reply, 403, 'insufficient_scope');
		expect(reply.body.detail).toContain('write:users');
	});

	test('20 concurrent identical creates make exactly one user; the others are 409 naming it', async () => {
		const body = { name: 'Racer', email: `${unique('racer')}@acme.example`, external_id: unique('race') };
		const replies = await Promise.all(Array.from({ length: 20 }, () => post(body)));
		const createdReplies = replies.filter((r) => r.status === 201);
		expect(createdReplies).toHaveLength(1);
		const winner = createdReplies[0].body.id;
		for (const r of replies.filter((x) => x.status !== 201)) {
			expectProblem(r, 409, 'email_taken');
			expect(r.body.user_id).toBe(winner);
		}
		expect(await User.count({ where: { organizationId: world.acme.id, emailLower: body.email } })).toBe(1);
	});

	test('with an Idempotency-Key, a retry replays the first answer and creates nothing more', async () => {
		const body = { name: 'Retry', email: `${unique('retry')}@acme.example` };
		const key = unique('idem');
		const first = await post(body, writeUsers, { 'idempotency-key': key });
		const replay = await post(body, writeUsers, { 'idempotency-key': key });
		expect(first.status).toBe(201);
		expect(replay.status).toBe(201);
		expect(replay.headers.get('idempotent-replayed')).toBe('true');
		expect(replay.headers.get('location')).toBe(first.headers.get('location'));
		expect(replay.text).toBe(first.text);
		expect(await User.count({ where: { emailLower: body.email } })).toBe(1);
	});
});

describe('GET /api/v1/users filters', () => {
	test('status and external_id (exact, case-sensitive); bad values are 400', async () => {
		const ext = unique('Filter');
		const user = await newUser({ external_id: ext });
		const byExternal = await get(`/api/v1/users?external_id=${encodeURIComponent(ext)}`);
		expect(byExternal.data).toEqual([user.body]);
		expect(byExternal.pagination.total).toBe(1);
		expect((await get(`/api/v1/users?external_id=${encodeURIComponent(ext.toUpperCase())}`)).data).toEqual([]);

		expect((await patch(user.body.id, { status: 'deactivated' })).status).toBe(200);
		const deactivated = await get('/api/v1/users?status=deactivated&per_page=100');
		expect(deactivated.data.map((u: { id: string }) => u.id)).toContain(user.body.id);
		expect(deactivated.data.every((u: { status: string }) => u.status === 'deactivated')).toBe(true);
		expect(deactivated.pagination.total).toBe(await User.count({ where: { organizationId: world.acme.id, status: 'deactivated' } }));
		const active = await get('/api/v1/users?status=active&role=student&per_page=100');
		expect(active.data.map((u: { id: string }) => u.id)).not.toContain(user.body.id);
		expect(active.pagination.total).toBe(await User.count({ where: { organizationId: world.acme.id, status: 'active', role: 'student' } }));

		for (const query of ['status=gone', 'external_id=', `external_id=${'x'.repeat(256)}`, 'external_id=a%0Ab', 'status=active&status=active']) {
			expectProblem(await call(server, `/api/v1/users?${query}`, { key: world.keys.all }), 400, 'invalid_request');
		}
	});
});

describe('GET /api/v1/users?external_id= repeated', () => {
	test('up to 100 external ids, each its own parameter (a comma belongs to the id): the users holding any of them; the Link header repeats them', async () => {
		const withComma = `${unique('Smith')}, J`;
		const plain = unique('EMP');
		const [a, b] = [(await newUser({ external_id: withComma })).body, (await newUser({ external_id: plain })).body];
		const q = (ids: string[]) => ids.map((id) => `external_id=${encodeURIComponent(id)}`).join('&');
		const reply = await call(server, `/api/v1/users?${q([withComma, 'nobody-here', plain])}&per_page=1`, { key: world.keys.all });
		expect(reply.status).toBe(200);
		expect(reply.body.pagination.total).toBe(2);
		expect(reply.body.data).toHaveLength(1);
		// The next page asks for the same ids, each still one parameter.
		const next = /<([^>]+)>; rel="next"/.exec(reply.headers.get('link')!)![1];
		expect(new URL(next).searchParams.getAll('external_id')).toEqual([withComma, 'nobody-here', plain]);
		const both = await get(`/api/v1/users?${q([withComma, 'nobody-here', plain])}&per_page=100`);
		expect(both.data.map((u: { id: string }) => u.id).sort()).toEqual([a.id, b.id].sort());
		// Once, a value with a comma is that one id, never a list.
		expect((await get(`/api/v1/users?external_id=${encodeURIComponent(withComma)}`)).data).toEqual([a]);
		expect((await get(`/api/v1/users?${q(Array.from({ length: 99 }, (_, i) => `none-${i}`).concat(plain))}`)).data).toEqual([b]);

		const tooMany = await call(server, `/api/v1/users?${q(Array.from({ length: 101 }, (_, i) => `none-${i}`))}`, { key: world.keys.all });
		expectProblem(tooMany, 400, 'invalid_request');
		expect(tooMany.body.errors).toEqual([expect.objectContaining({ param: 'external_id', message: expect.stringContaining('at most 100 times') })]);
		const oneBad = await call(server, `/api/v1/users?external_id=ok&external_id=a%0Ab`, { key: world.keys.all });
		expectProblem(oneBad, 400, 'invalid_request');
		expect(oneBad.body.errors).toEqual([expect.objectContaining({ param: 'external_id' })]);
		// Other parameters are still given once.
		expect((await call(server, '/api/v1/users?role=student&role=student', { key: world.keys.all })).body.errors).toEqual([expect.objectContaining({ code: 'repeated_parameter' })]);
	});
});

describe('PATCH /api/v1/users/{id}', () => {
	test('changes fields: 200 with the record, one user.updated with the old values of what changed', async () => {
		const user = (await newUser({ external_id: unique('old') })).body;
		const before = await head();
		const reply = await patch(user.id, { name: 'Renamed Person', role: 'instructor', external_id: null, email: user.email });
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ id: user.id, name: 'Renamed Person', role: 'instructor', external_id: null, email: user.email, status: 'active' });
		expect(Date.parse(reply.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(user.updated_at));
		expect(await get(`/api/v1/users/${user.id}`)).toEqual(reply.body);
		const events = await eventsSince(before);
		expect(events.map((e) => e.type)).toEqual(['user.updated']);
		expect(events[0].data).toEqual({ object: reply.body, previous_attributes: { name: user.name, role: 'student', external_id: user.external_id } });
		// The same event through GET /events/{id}.
		expect((await get(`/api/v1/events/${events[0].id}`)).data.previous_attributes).toEqual(events[0].data.previous_attributes);
	});

	test('a request that changes nothing answers 200 and emits nothing', async () => {
		const user = (await newUser()).body;
		const before = await head();
		for (const body of [{}, { name: user.name }, { status: 'active', role: 'student', email: user.email }]) {
			const reply = await patch(user.id, body);
			expect(reply.status).toBe(200);
			expect(reply.body).toEqual(user);
		}
		expect(await eventsSince(before)).toEqual([]);
	});

	test('a new name or e-mail is found by search, the old one no longer', async () => {
		const user = (await newUser({ name: 'Zebedee Quux' })).body;
		expect((await get('/api/v1/users?search=zebedee')).data.map((u: { id: string }) => u.id)).toEqual([user.id]);
		await patch(user.id, { name: 'Yolanda Quux', email: `${unique('yolanda')}@acme.example` });
		expect((await get('/api/v1/users?search=zebedee')).data).toEqual([]);
		expect((await get('/api/v1/users?search=yolanda')).data.map((u: { id: string }) => u.id)).toEqual([user.id]);
		expect((await get(`/api/v1/users?search=${encodeURIComponent(user.email)}`)).data).toEqual([]);
		const renamed = await get(`/api/v1/users/${user.id}`);
		expect((await get(`/api/v1/users?email=${encodeURIComponent(renamed.email.toUpperCase())}`)).data).toEqual([renamed]);
		expect((await get(`/api/v1/users?email=${encodeURIComponent(user.email)}`)).data).toEqual([]);
	});

	test('admins and super admins are 403 protected_user; granting admin is 422 role_not_allowed', async () => {
		for (const protectedUser of [world.users.admin, world.users.superAdmin]) {
			expectProblem(await patch(protectedUser.id, { name: 'Hijacked' }), 403, 'protected_user');
			expectProblem(await patch(protectedUser.id, { status: 'deactivated' }), 403, 'protected_user');
			expect((await User.findByPk(protectedUser.id))!.name).toBe(protectedUser.name);
		}
		const user = (await newUser()).body;
		for (const role of ['admin', 'super_admin']) expectProblem(await patch(user.id, { role }), 422, 'role_not_allowed');
		expect((await get(`/api/v1/users/${user.id}`)).role).toBe('student');
	});

	test('another organization’s user, an unknown id and a malformed id are 404; bad bodies 400', async () => {
		expectProblem(await patch(world.globexRecords.student.id, { name: 'X' }), 404, 'not_found');
		expectProblem(await patch('usr_doesnotexist0000000000', { name: 'X' }), 404, 'not_found');
		expectProblem(await patch('nope', { name: 'X' }), 404, 'not_found');
		const user = (await newUser()).body;
		for (const body of [{ status: 'deleted' }, { email: 'nope' }, { id: 'usr_x' }, { created_at: '2020-01-01T00:00:00.000Z' }, { name: null }, []]) {
			expectProblem(await patch(user.id, body), 400, 'invalid_request');
		}
	});

	test('an e-mail or external id another user holds is 409 naming them', async () => {
		const [a, b] = [(await newUser({ external_id: unique('a') })).body, (await newUser()).body];
		const email = await patch(b.id, { email: a.email.toUpperCase() });
		expectProblem(email, 409, 'email_taken');
		expect(email.body.user_id).toBe(a.id);
		const external = await patch(b.id, { external_id: a.external_id });
		expectProblem(external, 409, 'external_id_taken');
		expect(external.body.user_id).toBe(a.id);
		expect(await get(`/api/v1/users/${b.id}`)).toEqual(b);
	});

	test('with an Idempotency-Key, a retry replays the first answer', async () => {
		const user = (await newUser()).body;
		const key = unique('idem');
		const first = await patch(user.id, { name: 'Once' }, writeUsers, { 'idempotency-key': key });
		const replay = await patch(user.id, { name: 'Once' }, writeUsers, { 'idempotency-key': key });
		expect(first.status).toBe(200);
		expect(replay.headers.get('idempotent-replayed')).toBe('true');
		expect(replay.text).toBe(first.text);
		expectProblem(await patch(user.id, { name: 'Twice' }, writeUsers, { 'idempotency-key': key }), 422, 'idempotency_key_reused');
	});
});

describe('deactivation is one-step offboarding', () => {
	let courses: Course[];
	beforeAll(async () => {
		courses = await Promise.all(
			['Offboard A', 'Offboard B', 'Offboard C', 'Offboard D'].map((title) =>
				Course.create({ organizationId: world.acme.id, title, description: '', status: 'published', publishedAt: new Date() }),
			),
		);
	});

	const enroll = (studentId: string, course: Course) =>
		call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.all, body: { student_id: studentId, course_id: course.id } });

	test('withdraws every active enrollment (each with its event) and keeps completed ones and their certificates', async () => {
		const user = (await newUser()).body;
		const [a, b, c] = await Promise.all([enroll(user.id, courses[0]), enroll(user.id, courses[1]), enroll(user.id, courses[2])]);
		const completed = await call(server, `/api/v1/enrollments/${c.body.id}`, { method: 'PATCH', key: world.keys.all, body: { status: 'completed' } });
		expect(completed.status).toBe(200);
		const certificate = await Certificate.findOne({ where: { enrollmentId: c.body.id } });
		const certificateBefore = await get(`/api/v1/certificates/${certificate!.id}`);
		const before = await head();

		const reply = await patch(user.id, { status: 'deactivated' });
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ id: user.id, status: 'deactivated', deactivated_at: expect.stringMatching(/Z$/) });
		expect(await get(`/api/v1/users/${user.id}`)).toEqual(reply.body);

		for (const e of [a, b]) expect((await get(`/api/v1/enrollments/${e.body.id}`)).status).toBe('withdrawn');
		expect((await get(`/api/v1/enrollments/${c.body.id}`)).status).toBe('completed');
		expect(await get(`/api/v1/certificates/${certificate!.id}`)).toEqual(certificateBefore);
		expect((await get(`/api/v1/certificates?student_id=${user.id}`)).data).toEqual([certificateBefore]);

		const events = await eventsSince(before);
		expect(events.map((e) => e.type)).toEqual(['enrollment.withdrawn', 'enrollment.withdrawn', 'user.deactivated']);
		expect(new Set(events.slice(0, 2).map((e) => e.data.object.id))).toEqual(new Set([a.body.id, b.body.id]));
		expect(events[0].data.object.status).toBe('withdrawn');
		expect(events[2].data).toEqual({ object: reply.body });

		// Deactivating again changes nothing.
		const again = await patch(user.id, { status: 'deactivated' });
		expect(again.body).toEqual(reply.body);
		expect(await eventsSince(events[2].id)).toEqual([]);
	});

	test('a deactivated user cannot be enrolled or have an enrollment reactivated (422 user_deactivated); reactivation leaves withdrawn enrollments withdrawn', async () => {
		const user = (await newUser()).body;
		const first = await enroll(user.id, courses[0]);
		await patch(user.id, { status: 'deactivated' });

		const refused = await enroll(user.id, courses[1]);
		expectProblem(refused, 422, 'user_deactivated');
		const back = await call(server, `/api/v1/enrollments/${first.body.id}`, { method: 'PATCH', key: world.keys.all, body: { status: 'active' } });
		expectProblem(back, 422, 'user_deactivated');
		expect(await Enrollment.count({ where: { studentId: user.id, status: { [Op.ne]: 'withdrawn' } } })).toBe(0);

		const before = await head();
		const reactivated = await patch(user.id, { status: 'active' });
		expect(reactivated.status).toBe(200);
		expect(reactivated.body).toMatchObject({ status: 'active', deactivated_at: null });
		expect((await get(`/api/v1/enrollments/${first.body.id}`)).status).toBe('withdrawn');
		expect((await eventsSince(before)).map((e) => [e.type, e.data.object])).toEqual([['user.reactivated', reactivated.body]]);
		expect((await enroll(user.id, courses[1])).status).toBe(201);
	});

	test('name changes and deactivation in one request: user.updated, the withdrawals, then user.deactivated', async () => {
		const user = (await newUser()).body;
		const e = await enroll(user.id, courses[3]);
		const before = await head();
		const reply = await patch(user.id, { status: 'deactivated', name: 'Left Company' });
		const events = await eventsSince(before);
		expect(events.map((x) => x.type)).toEqual(['user.updated', 'enrollment.withdrawn', 'user.deactivated']);
		expect(events[0].data.previous_attributes).toEqual({ name: user.name });
		expect(events[1].data.object.id).toBe(e.body.id);
		expect(events[2].data.object).toEqual(reply.body);
	});

	test('a deactivated user cannot sign in, and their sessions end', async () => {
		const email = `${unique('signin')}@acme.example`;
		const password = 'correct horse battery';
		const user = await User.create({ organizationId: world.acme.id, name: 'Signs In', email, role: 'instructor', passwordHash: await hashPassword(password) });
		const browser = new PageClient(server.baseUrl);
		expect(PageClient.signInOutcome(await browser.signIn(email, password))).toBe('signed-in');
		expect((await browser.get('/settings')).status).toBe(200);

		expect((await patch(user.id, { status: 'deactivated' })).status).toBe(200);
		const page = await browser.get('/settings');
		expect(page.status).toBe(303);
		expect(page.headers.location).toBe('/login');
		expect(PageClient.signInOutcome(await browser.signIn(email, password))).toBe('refused');
		expect(PageClient.signInOutcome(await new PageClient(server.baseUrl).signIn(email, password))).toBe('refused');

		await patch(user.id, { status: 'active' });
		expect(PageClient.signInOutcome(await browser.signIn(email, password))).toBe('signed-in');
	});

	test('deactivation and an enrollment racing for the same user: either the enrollment is refused or it is withdrawn', async () => {
		for (let round = 0; round < 5; round += 1) {
			const user = (await newUser()).body;
			const [enrolled, deactivated] = await Promise.all([enroll(user.id, courses[round % 4]), patch(user.id, { status: 'deactivated' })]);
			expect(deactivated.status).toBe(200);
			if (enrolled.status === 201) expect((await get(`/api/v1/enrollments/${enrolled.body.id}`)).status).toBe('withdrawn');
			else expectProblem(enrolled, 422, 'user_deactivated');
			expect(await Enrollment.count({ where: { studentId: user.id, status: 'active' } })).toBe(0);
		}
	});
});
