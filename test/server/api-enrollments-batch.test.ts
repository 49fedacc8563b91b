import { Op } from 'sequelize';

import { Enrollment, Event, User } from '../../server/src/db';
import * as enroll from '../../server/src/enrollments/enroll';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type Reply, type World, newStudents as newStudentsOf } from './api-fixtures';

/**
 * POST /api/v1/enrollments/batch (SPEC §18): up to 100 bodies, each answered in order exactly as
 * its own POST /api/v1/enrollments would be, each in its own transaction with its event; partial
 * failure is a 200; a malformed batch is a 400 that changes nothing.
 */

let server: TestServer;
let world: World;
beforeAll(async () => ({ server, world } = await startApiServer()));
afterAll(() => server.stop());

const newStudents = (count: number) => newStudentsOf(world, 'Batch', count);
const newKey = () => `batch-${Date.now()}-${Math.random().toString(36).slice(2)}`;

const postBatch = (body: unknown, headers: Record<string, string> = {}, key = world.keys.writeEnrollments) =>
	call(server, '/api/v1/enrollments/batch', { method: 'POST', key, body, headers });
const postOne = (body: unknown) => call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.writeEnrollments, body });

const enrollmentsOf = (students: User[]) => Enrollment.count({ where: { studentId: { [Op.in]: students.map((s) => s.id) } } });
const withoutRequestId = (body: Record<string, unknown>) => ({ ...body, request_id: undefined });

describe('200: every item answered in order, as its own POST would be', () => {
	test('created, refused and invalid items side by side; each created one has its event', async () => {
		const [a, b, c] = await newStudents(3);
		const { intro, draft } = world.courses;
		const existing = world.enrollments[0];
		const items = [
			{ student_id: a.id, course_id: intro.id },
			{ student_id: existing.studentId, course_id: existing.courseId },
			{ student_id: 'usr_nobody', course_id: intro.id },
			{ student_id: world.users.admin.id, course_id: intro.id },
			{ student_id: b.id, course_id: 'crs_none' },
			{ student_id: b.id, course_id: draft.id },
			{ student_id: b.id },
			{ student_id: a.id, course_id: intro.id, progress_percent: 5 },
			// The same as item 0: answered as the second of two requests sent in this order.
			{ student_id: a.id, course_id: intro.id },
			{ student_id: c.id, course_id: intro.id },
		];
		const events = await Event.count({ where: { organizationId: world.acme.id, type: 'enrollment.created' } });
		const reply = await postBatch({ items });
		expect(reply.status).toBe(200);
		expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(Object.keys(reply.body)).toEqual(['data']);
		const data = reply.body.data as Array<{ index: number; status: number; body: Record<string, unknown> }>;
		expect(data.map((d) => [d.index, d.status, d.body.code])).toEqual([
			[0, 201, undefined],
			[1, 409, 'already_enrolled'],
			[2, 422, 'student_not_found'],
			[3, 422, 'not_a_student'],
			[4, 422, 'course_not_found'],
			[5, 422, 'course_not_published'],
			[6, 400, 'invalid_request'],
			[7, 400, 'invalid_request'],
			[8, 409, 'already_enrolled'],
			[9, 201, undefined],
		]);
		expect(data[8].body.enrollment_id).toBe(data[0].body.id);
		expect(data[1].body.enrollment_id).toBe(existing.id);
		// Problems carry the batch's request id, the one its logs are under.
		for (const d of data.filter((d) => d.status >= 400)) expect(d.body.request_id).toBe(reply.headers.get('x-request-id'));

		// Each created item is the record GET answers, and has its enrollment.created event.
		for (const d of [data[0], data[9]]) {
			expect((await call(server, `/api/v1/enrollments/${d.body.id}`, { key: world.keys.all })).body).toEqual(d.body);
		}
		expect(await Event.count({ where: { organizationId: world.acme.id, type: 'enrollment.created' } })).toBe(events + 2);

		// Every refusal is word for word what the single POST answers for that body.
		for (const index of [1, 2, 3, 4, 5, 6, 7, 8]) {
			const single = await postOne(items[index]);
			expect([index, single.status]).toEqual([index, data[index].status]);
			expect(withoutRequestId(data[index].body)).toEqual(withoutRequestId(single.body));
		}
	});

	test('what the batch reads before its first item answers each item as its POST: a deactivated student, ids of no id shape, one student in two courses', async () => {
		const [a, gone] = await newStudents(2);
		await gone.update({ status: 'deactivated' });
		const { intro, advanced } = world.courses;
		const items = [
			{ student_id: gone.id, course_id: intro.id },
			{ student_id: 'usr_\u0000', course_id: intro.id },
			{ student_id: a.id, course_id: 'crs_\u0000' },
			{ student_id: a.id, course_id: intro.id },
			{ student_id: a.id, course_id: advanced.id },
			{ student_id: 'not-an-id', course_id: 'not-an-id' },
		];
		const data = (await postBatch({ items })).body.data as Array<{ status: number; body: Record<string, unknown> }>;
		expect(data.map((d) => [d.status, d.body.code])).toEqual([
			[422, 'user_deactivated'],
			[422, 'student_not_found'],
			[422, 'course_not_found'],
			[201, undefined],
			[201, undefined],
			[422, 'student_not_found'],
		]);
		for (const index of [0, 1, 2, 5]) {
			const single = await postOne(items[index]);
			expect([index, single.status, withoutRequestId(single.body)]).toEqual([index, data[index].status, withoutRequestId(data[index].body)]);
		}
		for (const index of [3, 4]) expect((await postOne(items[index])).body.enrollment_id).toBe(data[index].body.id);
	});

	test('a student deactivated after the batch read them: their item is refused, for each item checks again in its transaction', async () => {
		const [a, b, c] = await newStudents(3);
		const real = enroll.enrollStudent;
		// Between item 0 and item 1, as a concurrent PATCH would: the batch has read b as active.
		const spy = jest.spyOn(enroll, 'enrollStudent').mockImplementation(async (org, student, course, dueAt, reads) => {
			if (student === b.id) await User.update({ status: 'deactivated' }, { where: { id: b.id } });
			return real(org, student, course, dueAt, reads);
		});
		try {
			const reply = await postBatch({ items: [a, b, c].map((s) => ({ student_id: s.id, course_id: world.courses.intro.id })) });
			expect(reply.body.data.map((d: { status: number; body: { code?: string } }) => [d.status, d.body.code])).toEqual([
				[201, undefined],
				[422, 'user_deactivated'],
				[201, undefined],
			]);
		} finally {
			spy.mockRestore();
		}
		expect(await enrollmentsOf([b])).toBe(0);
	});

	test('100 items: 100 enrollments, one count against the per-IP limit', async () => {
		const students = await newStudents(100);
		const before = Number((await call(server, '/api/v1/openapi.json')).headers.get('x-ratelimit-remaining'));
		const reply = await postBatch({ items: students.map((s) => ({ student_id: s.id, course_id: world.courses.safety.id })) });
		expect(reply.status).toBe(200);
		expect(Number(reply.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
		expect(reply.body.data.map((d: { index: number; status: number }) => [d.index, d.status])).toEqual(students.map((_, i) => [i, 201]));
		expect(reply.body.data.map((d: { body: { student_id: string } }) => d.body.student_id)).toEqual(students.map((s) => s.id));
		expect(await enrollmentsOf(students)).toBe(100);
	});

	test('an empty list answers an empty list', async () => {
		const reply = await postBatch({ items: [] });
		expect([reply.status, reply.body]).toEqual([200, { data: [] }]);
	});

	test('a bug behind one item: that item is a 500 problem, the others are answered, the batch is a 200', async () => {
		const [a, b, c] = await newStudents(3);
		const real = enroll.enrollStudent;
		const spy = jest.spyOn(enroll, 'enrollStudent').mockImplementation((org, student, course) => {
			if (student === b.id) return Promise.reject(new Error('disk I/O error'));
			return real(org, student, course);
		});
		const key = newKey();
		const items = [a, b, c].map((s) => ({ student_id: s.id, course_id: world.courses.intro.id }));
		try {
			const reply = await postBatch({ items }, { 'idempotency-key': key });
			expect(reply.status).toBe(200);
			expect(reply.body.data.map((d: { status: number }) => d.status)).toEqual([201, 500, 201]);
			expect(reply.body.data[1].body).toMatchObject({ status: 500, code: 'internal_error', request_id: reply.headers.get('x-request-id') });
			expect(reply.text).not.toContain('disk I/O');
		} finally {
			spy.mockRestore();
		}
		expect(await enrollmentsOf([a, c])).toBe(2);
		// Not kept for its key: the retry runs again, and this time item 1 goes through.
		const retry = await postBatch({ items }, { 'idempotency-key': key });
		expect(retry.headers.get('idempotent-replayed')).toBeNull();
		expect(retry.body.data.map((d: { status: number }) => d.status)).toEqual([409, 201, 409]);
	});
});

describe('if_exists: "return": a re-run costs one request per 100 items, whatever the mix', () => {
	test('an already enrolled item is answered 200 with its enrollment as it is; new ones 201; refusals unchanged; no event for the existing', async () => {
		const [a, b, c] = await newStudents(3);
		const { intro, advanced } = world.courses;
		const due = '2030-01-31T17:00:00.000Z';
		const first = await postBatch({ items: [{ student_id: a.id, course_id: intro.id, due_at: due }, { student_id: b.id, course_id: intro.id }] });
		const [made, completed] = first.body.data.map((d: { body: { id: string } }) => d.body.id);
		expect((await call(server, `/api/v1/enrollments/${completed}`, { method: 'PATCH', key: world.keys.writeEnrollments, body: { status: 'completed' } })).status).toBe(200);
		const events = await Event.count({ where: { organizationId: world.acme.id } });
		const items = [
			{ student_id: a.id, course_id: intro.id, due_at: '2031-06-30T17:00:00Z' },
			{ student_id: b.id, course_id: intro.id },
			{ student_id: c.id, course_id: advanced.id },
			// The one just made by item 2, as a second POST of the same pair.
			{ student_id: c.id, course_id: advanced.id },
			{ student_id: 'usr_nobody', course_id: intro.id },
		];
		const reply = await postBatch({ items, if_exists: 'return' });
		expect(reply.status).toBe(200);
		const data = reply.body.data as Array<{ status: number; body: Record<string, unknown> }>;
		expect(data.map((d) => [d.status, d.body.code])).toEqual([
			[200, undefined],
			[200, undefined],
			[201, undefined],
			[200, undefined],
			[422, 'student_not_found'],
		]);
		// Each returned enrollment is the record GET answers, untouched: the due date stays, the completed one stays completed.
		for (const [index, id] of [[0, made], [1, completed], [3, data[2].body.id]] as const) {
			expect(data[index].body).toEqual((await call(server, `/api/v1/enrollments/${id}`, { key: world.keys.all })).body);
		}
		expect(data[0].body.due_at).toBe(due);
		expect(data[1].body.status).toBe('completed');
		// Only the new enrollment wrote events.
		expect(await Event.count({ where: { organizationId: world.acme.id } })).toBe(events + 1);
		expect(await enrollmentsOf([a, b, c])).toBe(3);

		// "fail", the default, keeps the 409.
		const failing = await postBatch({ items: items.slice(0, 1), if_exists: 'fail' });
		expect([failing.body.data[0].status, failing.body.data[0].body.code]).toEqual([409, 'already_enrolled']);
	});

	test('any other if_exists is a 400 naming it that runs nothing', async () => {
		const [a] = await newStudents(1);
		for (const value of ['update', '', 1, null, ['return']]) {
			const reply = await postBatch({ items: [{ student_id: a.id, course_id: world.courses.intro.id }], if_exists: value });
			expectProblem(reply, 400, 'invalid_request');
			expect(reply.body.errors.map((e: { param: string }) => e.param)).toEqual(['if_exists']);
		}
		expect(await enrollmentsOf([a])).toBe(0);
	});

	test('two overlapping batches at once returning existing ones: each enrollment made once, and both answers name it', async () => {
		const students = await newStudents(30);
		const items = students.map((s) => ({ student_id: s.id, course_id: world.courses.advanced.id }));
		const [one, two] = await Promise.all([postBatch({ items, if_exists: 'return' }), postBatch({ items: [...items].reverse(), if_exists: 'return' })]);
		expect([one.status, two.status]).toEqual([200, 200]);
		const reversed = [...two.body.data].reverse();
		one.body.data.forEach((d: { status: number; body: { id: string } }, i: number) => {
			expect([d.status, reversed[i].status].sort()).toEqual([200, 201]);
			expect(reversed[i].body.id).toBe(d.body.id);
		});
		expect(await enrollmentsOf(students)).toBe(30);
	});
});

describe('400: a malformed batch changes nothing', () => {
	const expectInvalid = (reply: Reply, errors: Array<[string, string]>) => {
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors.map((e: { param: string; code: string }) => [e.param, e.code])).toEqual(errors);
		for (const e of reply.body.errors) expect(e.message).toMatch(/\.$/);
	};

	test('more than 100 items', async () => {
		const students = await newStudents(101);
		const reply = await postBatch({ items: students.map((s) => ({ student_id: s.id, course_id: world.courses.intro.id })) });
		expectInvalid(reply, [['items', 'too_many_items']]);
		expect(reply.body.detail).toContain('at most 100');
		expect(await enrollmentsOf(students)).toBe(0);
	});

	test('an item that is not an object: each one named, and the good items are not run either', async () => {
		const [a] = await newStudents(1);
		const reply = await postBatch({ items: [{ student_id: a.id, course_id: world.courses.intro.id }, 'usr_x', null, [1], 7] });
		expectInvalid(reply, [
			['items[1]', 'invalid_type'],
			['items[2]', 'invalid_type'],
			['items[3]', 'invalid_type'],
			['items[4]', 'invalid_type'],
		]);
		expect(await enrollmentsOf([a])).toBe(0);
	});

	test.each([
		['no items', {}, [['items', 'required']]],
		['items not a list', { items: { student_id: 'usr_x' } }, [['items', 'invalid_type']]],
		['an unknown field', { items: [], dry_run: true }, [['dry_run', 'unknown_field']]],
		['a list instead of an object', [{ student_id: 'usr_x' }], [['body', 'invalid_type']]],
	])('%s', async (_name, body, errors) => {
		expectInvalid(await postBatch(body), errors as Array<[string, string]>);
	});

	test('malformed JSON, not JSON, too large', async () => {
		expectProblem(await postBatch('{"items": ['), 400, 'malformed_json');
		expectProblem(await postBatch('{}', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
		expectProblem(await postBatch(`{"items": ["${'x'.repeat(1_100_000)}"]}`), 413, 'payload_too_large');
	});

	test('an Idempotency-Key over 255 characters or with a control character', async () => {
		const [a] = await newStudents(1);
		const body = { items: [{ student_id: a.id, course_id: world.courses.intro.id }] };
		for (const [key, code] of [
			['k'.repeat(256), 'too_long'],
			// A tab is the one control character HTTP lets through to the app (Node's parser refuses the others).
			['abc\tdef', 'invalid_format'],
			['caf\u00e9', 'invalid_format'],
		]) {
			const reply = await postBatch(body, { 'idempotency-key': key });
			expectInvalid(reply, [['Idempotency-Key', code]]);
		}
		expect(await enrollmentsOf([a])).toBe(0);
	});
});

describe('access', () => {
	test('401 without a key, 403 without write:enrollments, 405 for another method', async () => {
		expectProblem(await postBatch({ items: [] }, {}, ''), 401, 'missing_api_key');
		expectProblem(await postBatch({ items: [] }, {}, world.keys.readEnrollments), 403, 'insufficient_scope');
		expectProblem(await postBatch({ items: [] }, {}, world.keys.initech), 403, 'plan_required');
		const get = await call(server, '/api/v1/enrollments/batch', { key: world.keys.all });
		expectProblem(get, 405, 'method_not_allowed');
		expect(get.headers.get('allow')).toBe('POST');
	});

	test('another organization\'s records are not found, item by item', async () => {
		const [a] = await newStudents(1);
		const reply = await postBatch({
			items: [
				{ student_id: world.globexRecords.student.id, course_id: world.courses.intro.id },
				{ student_id: a.id, course_id: world.globexRecords.course.id },
			],
		});
		expect(reply.body.data.map((d: { body: { code: string } }) => d.body.code)).toEqual(['student_not_found', 'course_not_found']);
	});
});

describe('Idempotency-Key covers the whole batch', () => {
	test('a retry gets the first answer, marked replayed, and enrolls nobody twice', async () => {
		const students = await newStudents(5);
		const key = newKey();
		const body = { items: students.map((s) => ({ student_id: s.id, course_id: world.courses.advanced.id })) };
		const first = await postBatch(body, { 'idempotency-key': key });
		expect(first.body.data.map((d: { status: number }) => d.status)).toEqual([201, 201, 201, 201, 201]);
		const events = await Event.count({ where: { organizationId: world.acme.id } });
		const replay = await postBatch(body, { 'idempotency-key': key });
		expect(replay.status).toBe(200);
		expect(replay.headers.get('idempotent-replayed')).toBe('true');
		expect(replay.text).toBe(first.text);
		expect(await enrollmentsOf(students)).toBe(5);
		expect(await Event.count({ where: { organizationId: world.acme.id } })).toBe(events);
	});

	test('the same key for another batch: 422 idempotency_key_reused, nothing run', async () => {
		const [a, b] = await newStudents(2);
		const key = newKey();
		expect((await postBatch({ items: [{ student_id: a.id, course_id: world.courses.intro.id }] }, { 'idempotency-key': key })).status).toBe(200);
		const reply = await postBatch({ items: [{ student_id: b.id, course_id: world.courses.intro.id }] }, { 'idempotency-key': key });
		expectProblem(reply, 422, 'idempotency_key_reused');
		expect(await enrollmentsOf([b])).toBe(0);
	});

	test('20 concurrent identical batches with one key: one set of enrollments, one answer for all that finish', async () => {
		const students = await newStudents(20);
		const key = newKey();
		const body = { items: students.map((s) => ({ student_id: s.id, course_id: world.courses.safety.id })) };
		const replies = await Promise.all(Array.from({ length: 20 }, () => postBatch(body, { 'idempotency-key': key })));
		for (const r of replies.filter((r) => r.status !== 200)) expectProblem(r, 409, 'idempotency_key_in_use');
		const finished = replies.filter((r) => r.status === 200);
		expect(finished.length).toBeGreaterThanOrEqual(1);
		expect(new Set(finished.map((r) => r.text)).size).toBe(1);
		expect(finished.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
		expect(finished[0].body.data.map((d: { status: number }) => d.status)).toEqual(students.map(() => 201));
		expect(await enrollmentsOf(students)).toBe(20);
		expect(await Event.count({ where: { type: 'enrollment.created', data: { [Op.like]: `%${students[0].id}%` } } })).toBe(1);
		expect((await postBatch(body, { 'idempotency-key': key })).text).toBe(finished[0].text);
	});
});

test('two overlapping batches at once, no key: each enrollment made once, answered 201 in one batch and 409 in the other', async () => {
	const students = await newStudents(30);
	const items = students.map((s) => ({ student_id: s.id, course_id: world.courses.intro.id }));
	// The same items, the second batch in reverse order, so that they meet in the middle.
	const [one, two] = await Promise.all([postBatch({ items }), postBatch({ items: [...items].reverse() })]);
	expect([one.status, two.status]).toEqual([200, 200]);
	const byStudent = new Map<string, number[]>();
	for (const [reply, reversed] of [[one, false], [two, true]] as const) {
		reply.body.data.forEach((d: { status: number }, i: number) => {
			const student = students[reversed ? students.length - 1 - i : i].id;
			byStudent.set(student, [...(byStudent.get(student) ?? []), d.status]);
		});
	}
	for (const statuses of byStudent.values()) expect(statuses.sort()).toEqual([201, 409]);
	expect(await enrollmentsOf(students)).toBe(30);
});
