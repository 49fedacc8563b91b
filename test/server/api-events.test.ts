import { Course, database, Event, User } from '../../server/src/db';
import { writeTransaction } from '../../server/src/db/write-transaction';
import { recordEvent, recordEvents } from '../../server/src/events/record';
import { pruneEvents } from '../../server/src/events/retention';
import { runCli } from '../helpers/cli';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, feedCaughtUp, startApiServer, type Reply, type World } from './api-fixtures';

/** GET /api/v1/events and /events/{id} (SPEC §11), and which changes write events. */

let server: TestServer;
let world: World;
beforeAll(async () => {
	({ server, world } = await startApiServer());
});
afterAll(() => server.stop());

const feed = (query = '', key = world.keys.all) => call(server, `/api/v1/events${query}`, { key });
/** Every test reads after its writes: let the feed catch up first (see feedCaughtUp). */
beforeEach(async () => {
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	await feedCaughtUp(server, world.keys.globex, world.globex.id);
});

/** Every event the key can read, by following `after` (the client's loop). */
async function readAll(query = '', key = world.keys.all): Promise<Array<{ id: string; type: string; created_at: string; data: { object: Record<string, unknown> } }>> {
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const out = [];
	for (let after = ''; ; ) {
		const reply = await feed(`?limit=100${query}${after ? `&after=${after}` : ''}`, key);
		expect(reply.status).toBe(200);
		out.push(...reply.body.data);
		if (!reply.body.has_more) return out;
		after = reply.body.data[reply.body.data.length - 1].id;
	}
}

const enroll = (studentId: string, courseId: string, key = world.keys.all) =>
	call(server, '/api/v1/enrollments', { method: 'POST', key, body: { student_id: studentId, course_id: courseId } });
const patch = (id: string, body: object) => call(server, `/api/v1/enrollments/${id}`, { method: 'PATCH', key: world.keys.all, body });

describe('the feed', () => {
	let created: Reply;
	beforeAll(async () => {
		created = await enroll(world.users.erin.id, world.courses.advanced.id);
		expect(created.status).toBe(201);
		await patch(created.body.id, { progress_percent: 30 });
		await patch(created.body.id, { status: 'completed' });
	});

	test('oldest first: each change’s event, with the record as the API returned it right after the change', async () => {
		const reply = await feed();
		expect(reply.status).toBe(200);
		expect(Object.keys(reply.body).sort()).toEqual(['data', 'has_more']);
		expect(reply.body.has_more).toBe(false);
		expect(reply.headers.get('link')).toBeNull();
		const events = reply.body.data;
		expect(events.map((e: { type: string }) => e.type)).toEqual(['enrollment.created', 'enrollment.progressed', 'enrollment.completed', 'certificate.issued']);
		for (const e of events) {
			expect(Object.keys(e).sort()).toEqual(['created_at', 'data', 'id', 'type']);
			expect(e.id).toMatch(/^evt_[0-9a-f]{28}$/);
			expect(e.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		}
		expect(events.map((e: { id: string }) => e.id)).toEqual(events.map((e: { id: string }) => e.id).sort());
		expect(events[0].data.object).toEqual(created.body);
		expect(events[1].data.object).toMatchObject({ id: created.body.id, status: 'active', progress_percent: 30 });
		const enrollmentNow = await call(server, `/api/v1/enrollments/${created.body.id}`, { key: world.keys.all });
		expect(events[2].data.object).toEqual(enrollmentNow.body);
		const certificate = await call(server, `/api/v1/certificates?student_id=${world.users.erin.id}`, { key: world.keys.all });
		expect(events[3].data.object).toEqual(certificate.body.data[0]);
	});

	test('GET /events/{id} is the same event; another organization’s or an unknown id is 404', async () => {
		const [first] = (await feed()).body.data;
		const one = await call(server, `/api/v1/events/${first.id}`, { key: world.keys.all });
		expect(one.status).toBe(200);
		expect(one.body).toEqual(first);
		expectProblem(await call(server, `/api/v1/events/${first.id}`, { key: world.keys.globex }), 404, 'not_found');
		expectProblem(await call(server, '/api/v1/events/evt_nope', { key: world.keys.all }), 404, 'not_found');
	});

	test('limit pages the feed; has_more and a Link rel="next" until the end; following them reads each event once', async () => {
		const all = (await feed()).body.data.map((e: { id: string }) => e.id);
		const seen: string[] = [];
		let url: string | null = `${server.baseUrl}/api/v1/events?limit=1&type=enrollment.*`;
		let pages = 0;
		while (url) {
			const reply: Reply = await call(server, url.slice(server.baseUrl.length), { key: world.keys.all });
			pages += 1;
			seen.push(...reply.body.data.map((e: { id: string }) => e.id));
			const link = reply.headers.get('link');
			expect(link !== null).toBe(reply.body.has_more);
			url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : null;
			if (link) expect(url).toContain('type=enrollment.*');
		}
		expect(seen).toEqual(all.slice(0, 3));
		// The third page already knows nothing follows it: no empty last page.
		expect(pages).toBe(3);
		const after = await feed(`?after=${all[1]}`);
		expect(after.body.data.map((e: { id: string }) => e.id)).toEqual(all.slice(2));
		expect((await feed(`?after=${all[3]}`)).body).toEqual({ data: [], has_more: false });
	});

	test('type: one type, a comma list, a prefix', async () => {
		const types = async (q: string) => (await feed(q)).body.data.map((e: { type: string }) => e.type);
		expect(await types('?type=certificate.issued')).toEqual(['certificate.issued']);
		expect(await types('?type=enrollment.created,certificate.issued')).toEqual(['enrollment.created', 'certificate.issued']);
		expect(await types('?type=enrollment.*')).toEqual(['enrollment.created', 'enrollment.progressed', 'enrollment.completed']);
		expect(await types('?type=enrollment.completed,enrollment.*')).toEqual(['enrollment.created', 'enrollment.progressed', 'enrollment.completed']);
	});
});

describe('strict query', () => {
	test.each([
		['?type=enrollment.done', 'type'],
		['?type=enrollment', 'type'],
		['?type=*', 'type'],
		['?type=', 'type'],
		['?type=user.created,', 'type'],
		['?limit=0', 'limit'],
		['?limit=101', 'limit'],
		['?limit=1.5', 'limit'],
		['?limit=abc', 'limit'],
		['?page=2', 'page'],
		['?per_page=10', 'per_page'],
		['?limit=1&limit=2', 'limit'],
		['?__proto__=1', '__proto__'],
		['?after=nope', 'after'],
		['?after=', 'after'],
	])('%s → 400 naming %s', async (query, param) => {
		const reply = await feed(query);
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors.map((e: { param: string }) => e.param)).toContain(param);
	});
});

describe('after', () => {
	test('another organization’s event id → 400 naming after', async () => {
		const globexStudent = world.globexRecords.student;
		const course = await Course.create({ organizationId: world.globex.id, title: 'G2', description: '', status: 'published', publishedAt: new Date() });
		expect((await enroll(globexStudent.id, course.id, world.keys.globex)).status).toBe(201);
		await feedCaughtUp(server, world.keys.globex, world.globex.id);
		const [theirs] = (await feed('', world.keys.globex)).body.data;
		const reply = await feed(`?after=${theirs.id}`);
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual([expect.objectContaining({ param: 'after' })]);
		// And they never see ours.
		expect((await readAll('', world.keys.globex)).map((e) => e.type)).toEqual(['enrollment.created']);
	});

	test('ids count the organization’s own events: what another organization writes in between leaves no gap (issue 39)', async () => {
		const count = (id: string) => Number(id.slice(-16));
		const write = (organizationId: string, n: number) =>
			writeTransaction(database(), (transaction) =>
				recordEvents(transaction, Array.from({ length: n }, (_, i) => ({ organizationId, type: 'user.created' as const, object: { id: `usr_gap${i}` } }))),
			);
		const newest = async (key: string) => (await readAll('', key)).at(-1)!.id;
		await write(world.acme.id, 1);
		await write(world.globex.id, 1);
		const [ours, theirs] = [await newest(world.keys.all), await newest(world.keys.globex)];
		await write(world.globex.id, 7);
		await write(world.acme.id, 2);
		expect(count(await newest(world.keys.all))).toBe(count(ours) + 2);
		expect(count(await newest(world.keys.globex))).toBe(count(theirs) + 7);
		// Still one id space: an id of one organization is never another's.
		expect((await newest(world.keys.all)).slice(0, 16)).not.toBe((await newest(world.keys.globex)).slice(0, 16));
	});

	test('an event removed by retention → 410 cursor_expired; the feed then starts from the oldest kept', async () => {
		const student = await User.create({ organizationId: world.acme.id, name: 'Old', email: 'old@acme.example', role: 'student', passwordHash: null });
		const old = await enroll(student.id, world.courses.intro.id);
		const oldEvent = (await readAll()).find((e) => e.data.object.id === old.body.id)!;
		await Event.update({ createdAt: new Date(Date.now() - 30.5 * 86_400_000) }, { where: { id: oldEvent.id } });
		// Kept for 30 days: still there with a 31-day retention.
		expect(await pruneEvents(31)).toBe(0);
		expect((await feed(`?after=${oldEvent.id}`)).status).toBe(200);
		expect(await pruneEvents(30)).toBe(1);
		const reply = await feed(`?after=${oldEvent.id}`);
		expectProblem(reply, 410, 'cursor_expired');
		expect(reply.body.detail).toMatch(/without after/);
		expect((await readAll()).map((e) => e.id)).not.toContain(oldEvent.id);
		expectProblem(await call(server, `/api/v1/events/${oldEvent.id}`, { key: world.keys.all }), 404, 'not_found');
		// A made-up id above everything removed is not expired: it is not an event of ours.
		expect((await feed('?after=evt_ffffffffffffffffffffffffffff')).status).toBe(400);
	});
});

describe('scopes per event type', () => {
	beforeAll(async () => {
		const reply = await runCli(['users', 'create', '--org', 'acme', '--email', 'cli.student@acme.example', '--name', 'Cli Student', '--role', 'student'], {
			env: { DATABASE_URL: server.databaseUrl },
		});
		expect(reply).toMatchObject({ code: 0 });
	});

	test('read:users sees user.* only; read:enrollments sees enrollment.* and certificate.* only', async () => {
		const users = await readAll('', world.keys.readUsers);
		expect(users.length).toBeGreaterThan(0);
		expect(new Set(users.map((e) => e.type))).toEqual(new Set(['user.created']));
		expect(users.find((e) => e.data.object.email === 'cli.student@acme.example')?.data.object).toMatchObject({ name: 'Cli Student', role: 'student' });
		const enrollments = await readAll('', world.keys.readEnrollments);
		expect(enrollments.every((e) => /^(enrollment|certificate)\./.test(e.type))).toBe(true);
		const all = await readAll('', world.keys.all);
		expect(all.length).toBe(users.length + enrollments.length);
	});

	test('asking for a type the key cannot see → 403 naming the scope', async () => {
		for (const [query, key, scope] of [
			['?type=user.created', world.keys.readEnrollments, 'read:users'],
			['?type=user.*,enrollment.*', world.keys.readEnrollments, 'read:users'],
			['?type=certificate.issued', world.keys.readUsers, 'read:enrollments'],
			['?type=enrollment.*', world.keys.readUsers, 'read:enrollments'],
		]) {
			const reply = await feed(query, key);
			expectProblem(reply, 403, 'insufficient_scope');
			expect(reply.body.detail).toContain(scope);
			expect(reply.headers.get('www-authenticate')).toContain(scope);
		}
		const [userEvent] = await readAll('&type=user.created', world.keys.readUsers);
		// One event of a type the key cannot see answers as another organization's does (issue 39):
		// the same 404, whether the id exists here, elsewhere or nowhere.
		const hidden = await call(server, `/api/v1/events/${userEvent.id}`, { key: world.keys.readEnrollments });
		const elsewhere = await call(server, `/api/v1/events/${userEvent.id}`, { key: world.keys.globex });
		const nowhere = await call(server, `/api/v1/events/evt_${'f'.repeat(28)}`, { key: world.keys.readEnrollments });
		for (const reply of [hidden, elsewhere, nowhere]) expectProblem(reply, 404, 'not_found');
		const shape = (reply: typeof hidden) => ({ headers: reply.headers.get('www-authenticate'), body: { ...reply.body, request_id: undefined } });
		expect(shape(hidden)).toEqual(shape(elsewhere));
		expect(shape(hidden)).toEqual(shape(nowhere));
		expect((await call(server, `/api/v1/events/${userEvent.id}`, { key: world.keys.readUsers })).status).toBe(200);
	});

	test('a key that can see no type → 403 before anything else; no key → 401', async () => {
		for (const key of [world.keys.readCourses, world.keys.writeEnrollments]) {
			const reply = await feed('?limit=0', key);
			expectProblem(reply, 403, 'insufficient_scope');
			expect(reply.body.detail).toMatch(/read:enrollments or read:users/);
		}
		expectProblem(await call(server, '/api/v1/events'), 401, 'missing_api_key');
		expectProblem(await feed('', world.keys.initech), 403, 'plan_required');
	});
});

describe('a change that does not happen writes no event', () => {
	test('a refused POST, a refused PATCH, a taken e-mail, a rolled-back transaction', async () => {
		const before = await Event.count();
		expect((await enroll(world.users.alice.id, world.courses.intro.id)).status).toBe(409);
		expect((await patch(world.enrollments[0].id, { status: 'withdrawn' })).status).toBe(409);
		const taken = await runCli(['users', 'create', '--org', 'acme', '--email', world.users.bob.email, '--name', 'Bob again', '--role', 'student'], {
			env: { DATABASE_URL: server.databaseUrl },
		});
		expect(taken.code).toBe(1);
		await expect(
			writeTransaction(database(), async (transaction) => {
				await recordEvent(transaction, { organizationId: world.acme.id, type: 'user.created', object: { id: 'usr_ghost' } });
				throw new Error('the change failed after its event was written');
			}),
		).rejects.toThrow('the change failed');
		expect(await Event.count()).toBe(before);
		expect((await readAll()).some((e) => e.data.object.id === 'usr_ghost')).toBe(false);
	});
});

describe('the operator’s console writes the same events', () => {
	const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: server.databaseUrl } });

	test('enrollments update: progress, complete, and --status expired (operator only)', async () => {
		const student = await User.create({ organizationId: world.acme.id, name: 'Op', email: 'op@acme.example', role: 'student', passwordHash: null });
		const e = (await enroll(student.id, world.courses.safety.id)).body;
		const expireMe = (await enroll(student.id, world.courses.intro.id)).body;

		const progressed = await cli('enrollments', 'update', e.id, '--progress', '55', '--json');
		expect(progressed).toMatchObject({ code: 0, stderr: '' });
		expect(JSON.parse(progressed.stdout)).toMatchObject({ id: e.id, status: 'active', progress_percent: 55 });
		expect((await cli('enrollments', 'update', e.id, '--status', 'completed')).stdout).toMatch(/completed/);
		expect((await cli('enrollments', 'update', expireMe.id, '--status', 'expired')).code).toBe(0);

		const refused = await cli('enrollments', 'update', e.id, '--status', 'withdrawn');
		expect(refused.code).toBe(1);
		expect(refused.stderr).toMatch(/^lms-server: An enrollment cannot go from completed to withdrawn/);
		for (const args of [['--progress', '101'], ['--progress', '5.5'], ['--status', 'done'], []]) {
			const bad = await cli('enrollments', 'update', e.id, ...args);
			expect(bad.code).not.toBe(0);
			expect(bad.stderr).toMatch(/^lms-server: /);
		}
		expect((await cli('enrollments', 'update', 'enr_doesnotexist', '--status', 'completed')).stderr).toMatch(/No enrollment/);

		const mine = (await readAll()).filter((x) => x.data.object.id === e.id || x.data.object.enrollment_id === e.id || x.data.object.id === expireMe.id);
		expect(mine.map((x) => x.type)).toEqual([
			'enrollment.created',
			'enrollment.created',
			'enrollment.progressed',
			'enrollment.completed',
			'certificate.issued',
			'enrollment.expired',
		]);
		expect(mine[5].data.object).toMatchObject({ id: expireMe.id, status: 'expired' });
	});
});
