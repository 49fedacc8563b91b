import { Enrollment, Event, IdempotencyKey, User, WebhookEndpoint } from '../../server/src/db';
import { requestFingerprint } from '../../server/src/http/idempotency';
import { claimKey, keepAnswer } from '../../server/src/idempotency/keys';
import { pruneIdempotencyKeys } from '../../server/src/idempotency/retention';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type Reply, type World } from './api-fixtures';

/**
 * Idempotency-Key on every POST and PATCH (SPEC §18): a retry of the same request gets the first
 * answer again, marked `Idempotent-Replayed: true`, and changes nothing more.
 */

let server: TestServer;
let world: World;
beforeAll(async () => ({ server, world } = await startApiServer({ RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_ALLOW_PRIVATE: 'true' })));
afterAll(() => server.stop());

let n = 0;
/** A student of acme made for one test, so that tests never meet each other's enrollments. */
async function newStudent(organizationId = world.acme.id): Promise<User> {
	n += 1;
	return User.create({ organizationId, name: `Idem ${n}`, email: `idem${n}@acme.example`, role: 'student', passwordHash: null });
}
const newKey = () => `key-${Date.now()}-${Math.random().toString(36).slice(2)}`;

const post = (body: unknown, idempotencyKey: string | undefined, key = world.keys.writeEnrollments, headers: Record<string, string> = {}) =>
	call(server, '/api/v1/enrollments', {
		method: 'POST',
		key,
		body,
		headers: { ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }), ...headers },
	});

const enrollmentsOf = (studentId: string) => Enrollment.count({ where: { studentId } });

function expectReplayOf(replay: Reply, first: Reply): void {
	expect(replay.status).toBe(first.status);
	expect(replay.headers.get('idempotent-replayed')).toBe('true');
	expect(replay.headers.get('location')).toBe(first.headers.get('location'));
	expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
}

describe('a retry of the same request', () => {
	test('gets the first answer again, marked replayed, and enrolls once', async () => {
		const student = await newStudent();
		const key = newKey();
		const body = { student_id: student.id, course_id: world.courses.intro.id };
		const first = await post(body, key);
		expect(first.status).toBe(201);
		expect(first.headers.get('idempotent-replayed')).toBeNull();
		const eventsAfterFirst = await Event.count({ where: { organizationId: world.acme.id } });

		const replay = await post(body, key);
		expectReplayOf(replay, first);
		expect(replay.text).toBe(first.text);
		expect(await enrollmentsOf(student.id)).toBe(1);
		expect(await Event.count({ where: { organizationId: world.acme.id } })).toBe(eventsAfterFirst);
	});

	test('is the same request whatever the JSON spacing and key order', async () => {
		const student = await newStudent();
		const key = newKey();
		const first = await post({ student_id: student.id, course_id: world.courses.intro.id }, key);
		const replay = await post(`{ "course_id": "${world.courses.intro.id}",\n  "student_id": "${student.id}" }`, key);
		expectReplayOf(replay, first);
		expect(replay.body).toEqual(first.body);
	});

	test('from another key of the same organization is replayed too (keys are per organization)', async () => {
		const student = await newStudent();
		const key = newKey();
		const body = { student_id: student.id, course_id: world.courses.intro.id };
		const first = await post(body, key, world.keys.writeEnrollments);
		const replay = await post(body, key, world.keys.all);
		expectReplayOf(replay, first);
	});

	test('a refusal the server decided (422) is kept and replayed, with the retry\'s request id', async () => {
		const key = newKey();
		const body = { student_id: 'usr_nobody', course_id: world.courses.intro.id };
		const first = await post(body, key);
		expectProblem(first, 422, 'student_not_found');
		const replay = await post(body, key);
		expectProblem(replay, 422, 'student_not_found');
		expectReplayOf(replay, first);
		expect({ ...replay.body, request_id: undefined }).toEqual({ ...first.body, request_id: undefined });
	});

	test('a 400 (invalid body) is not kept: the key can be used for the corrected request', async () => {
		const student = await newStudent();
		const key = newKey();
		expectProblem(await post({ student_id: student.id }, key), 400, 'invalid_request');
		const fixed = await post({ student_id: student.id, course_id: world.courses.intro.id }, key);
		expect(fixed.status).toBe(201);
		expect(fixed.headers.get('idempotent-replayed')).toBeNull();
	});

	test('PATCH: the replay answers the first result and emits nothing more', async () => {
		const student = await newStudent();
		const created = await post({ student_id: student.id, course_id: world.courses.intro.id }, undefined);
		const key = newKey();
		const patch = (progress: number) =>
			call(server, `/api/v1/enrollments/${created.body.id}`, { method: 'PATCH', key: world.keys.all, body: { progress_percent: progress }, headers: { 'idempotency-key': key } });
		const first = await patch(40);
		expect(first.status).toBe(200);
		const events = await Event.count({ where: { organizationId: world.acme.id } });
		// Meanwhile someone else moves it on; the retry must not set it back.
		await call(server, `/api/v1/enrollments/${created.body.id}`, { method: 'PATCH', key: world.keys.all, body: { progress_percent: 70 } });
		const replay = await patch(40);
		expectReplayOf(replay, first);
		expect(replay.body.progress_percent).toBe(40);
		expect((await Enrollment.findByPk(created.body.id))!.progressPercent).toBe(70);
		expect(await Event.count({ where: { organizationId: world.acme.id } })).toBe(events + 1);
	});

	test('a webhook endpoint\'s replay does not show its secret a second time', async () => {
		const key = newKey();
		const create = () =>
			call(server, '/api/v1/webhook_endpoints', {
				method: 'POST',
				key: world.keys.all,
				body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
				headers: { 'idempotency-key': key },
			});
		const first = await create();
		expect(first.status).toBe(201);
		expect(first.body.secret).toMatch(/^whsec_/);
		const replay = await create();
		expectReplayOf(replay, first);
		expect(replay.body).toEqual({ ...first.body, secret: undefined });
		expect(replay.text).not.toContain(first.body.secret);
		expect(await WebhookEndpoint.count({ where: { url: 'http://127.0.0.1:9/hook' } })).toBe(1);
	});
});

describe('the same key for another request', () => {
	test('another body: 422 idempotency_key_reused, nothing changed', async () => {
		const [a, b] = [await newStudent(), await newStudent()];
		const key = newKey();
		expect((await post({ student_id: a.id, course_id: world.courses.intro.id }, key)).status).toBe(201);
		const reply = await post({ student_id: b.id, course_id: world.courses.intro.id }, key);
		expectProblem(reply, 422, 'idempotency_key_reused');
		expect(reply.body.detail).toContain('POST /api/v1/enrollments');
		expect(await enrollmentsOf(b.id)).toBe(0);
	});

	test('another path or method: 422', async () => {
		const student = await newStudent();
		const key = newKey();
		const created = await post({ student_id: student.id, course_id: world.courses.intro.id }, key);
		const reply = await call(server, `/api/v1/enrollments/${created.body.id}`, {
			method: 'PATCH',
			key: world.keys.all,
			body: { progress_percent: 10 },
			headers: { 'idempotency-key': key },
		});
		expectProblem(reply, 422, 'idempotency_key_reused');
		expect((await Enrollment.findByPk(created.body.id))!.progressPercent).toBe(0);
	});

	test('in another organization the same key is another key', async () => {
		const key = newKey();
		const acmeStudent = await newStudent();
		const globexStudent = await newStudent(world.globex.id);
		expect((await post({ student_id: acmeStudent.id, course_id: world.courses.intro.id }, key)).status).toBe(201);
		const other = await post({ student_id: globexStudent.id, course_id: world.globexRecords.course.id }, key, world.keys.globex);
		expect(other.status).toBe(201);
		expect(other.headers.get('idempotent-replayed')).toBeNull();
	});
});

describe('while the first request runs', () => {
	const claimFor = async (body: object, key: string, now = new Date()) =>
		claimKey(
			{ organizationId: world.acme.id, key, method: 'POST', path: '/api/v1/enrollments', fingerprint: requestFingerprint('POST', '/api/v1/enrollments', body) },
			now,
		);

	test('409 idempotency_key_in_use, with Retry-After, and nothing runs', async () => {
		const student = await newStudent();
		const key = newKey();
		const body = { student_id: student.id, course_id: world.courses.intro.id };
		await claimFor(body, key);
		const reply = await post(body, key);
		expectProblem(reply, 409, 'idempotency_key_in_use');
		expect(reply.headers.get('retry-after')).toBe('1');
		expect(await enrollmentsOf(student.id)).toBe(0);
	});

	test('a claim whose process died (older than a minute, no answer) is taken over', async () => {
		const student = await newStudent();
		const key = newKey();
		const body = { student_id: student.id, course_id: world.courses.intro.id };
		await claimFor(body, key, new Date(Date.now() - 61_000));
		const reply = await post(body, key);
		expect(reply.status).toBe(201);
		expect(await enrollmentsOf(student.id)).toBe(1);
		expectReplayOf(await post(body, key), reply);
	});

	test('20 concurrent identical requests with one key: one enrollment, one answer for all that finish', async () => {
		const student = await newStudent();
		const key = newKey();
		const body = { student_id: student.id, course_id: world.courses.safety.id };
		const replies = await Promise.all(Array.from({ length: 20 }, () => post(body, key)));
		const finished = replies.filter((r) => r.status !== 409);
		for (const r of replies.filter((r) => r.status === 409)) expectProblem(r, 409, 'idempotency_key_in_use');
		expect(finished.length).toBeGreaterThanOrEqual(1);
		expect(new Set(finished.map((r) => r.status))).toEqual(new Set([201]));
		expect(new Set(finished.map((r) => r.text)).size).toBe(1);
		expect(finished.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
		expect(await enrollmentsOf(student.id)).toBe(1);
		// Whoever asks again afterwards gets that same answer.
		expect((await post(body, key)).text).toBe(finished[0].text);
	});
});

describe('kept for 24 hours', () => {
	test('an expired key counts as absent, and retention removes it', async () => {
		const student = await newStudent();
		const key = newKey();
		const body = { student_id: student.id, course_id: world.courses.intro.id };
		const longAgo = new Date(Date.now() - 25 * 3_600_000);
		const claim = await claimKey(
			{ organizationId: world.acme.id, key, method: 'POST', path: '/api/v1/enrollments', fingerprint: requestFingerprint('POST', '/api/v1/enrollments', body) },
			longAgo,
		);
		await keepAnswer({ organizationId: world.acme.id, key }, claim.token!, { status: 201, headers: {}, body: '{"old":true}' });
		const reply = await post(body, key);
		expect(reply.status).toBe(201);
		expect(reply.headers.get('idempotent-replayed')).toBeNull();

		const other = newKey();
		const stale = await claimKey({ organizationId: world.acme.id, key: other, method: 'POST', path: '/x', fingerprint: 'f' }, longAgo);
		expect(stale.token).toBeDefined();
		expect(await pruneIdempotencyKeys()).toBeGreaterThanOrEqual(1);
		expect(await IdempotencyKey.count({ where: { key: other } })).toBe(0);
		expect(await IdempotencyKey.count({ where: { key } })).toBe(1);
	});
});

describe('a key that is not 1–255 printable ASCII characters: 400 naming the header, nothing changed', () => {
	test.each([
		['256 characters', () => 'k'.repeat(256), 'too_long'],
		['a tab inside', () => 'abc\tdef', 'invalid_format'],
		['a non-ASCII character', () => 'caf\u00e9', 'invalid_format'],
		['empty', () => '', 'empty'],
		['an empty quoted string', () => '""', 'empty'],
	])('%s', async (_name, key, code) => {
		const student = await newStudent();
		const reply = await post({ student_id: student.id, course_id: world.courses.intro.id }, key());
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual([{ param: 'Idempotency-Key', code, message: expect.stringContaining('Idempotency-Key must be 1 to 255 printable ASCII characters') }]);
		expect(await enrollmentsOf(student.id)).toBe(0);
	});

	test('255 characters (spaces and punctuation included) are a key', async () => {
		const student = await newStudent();
		const key = `${'k'.repeat(250)} !"~x`;
		const body = { student_id: student.id, course_id: world.courses.intro.id };
		expect((await post(body, key)).status).toBe(201);
		expect((await post(body, key)).headers.get('idempotent-replayed')).toBe('true');
	});

	test('the draft\'s quoted form names the same key as the bare one', async () => {
		const student = await newStudent();
		const key = newKey();
		const body = { student_id: student.id, course_id: world.courses.intro.id };
		const first = await post(body, `"${key}"`);
		expectReplayOf(await post(body, key), first);
	});

	test('checks come in order: authentication and scope before the key', async () => {
		const body = { student_id: world.users.dave.id, course_id: world.courses.intro.id };
		expectProblem(await post(body, 'x'.repeat(300), ''), 401, 'missing_api_key');
		expectProblem(await post(body, 'x'.repeat(300), world.keys.readEnrollments), 403, 'insufficient_scope');
		expectProblem(await post(body, 'x'.repeat(300), world.keys.initech), 403, 'plan_required');
	});
});
