import { Enrollment, User } from '../../server/src/db';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

let server: TestServer;
let world: World;
beforeAll(async () => ({ server, world } = await startApiServer()));
afterAll(() => server.stop());

const post = (body: unknown, headers: Record<string, string> = {}, key = world.keys.writeEnrollments) =>
	call(server, '/api/v1/enrollments', { method: 'POST', key, body, headers });

describe('201 Created', () => {
	test('a new active enrollment with progress 0, Location and the record', async () => {
		const before = Date.now();
		const reply = await post({ student_id: world.users.dave.id, course_id: world.courses.advanced.id });
		expect(reply.status).toBe(201);
		expect(reply.headers.get('location')).toBe(`/api/v1/enrollments/${reply.body.id}`);
		expect(reply.body).toEqual({
			id: expect.stringMatching(/^enr_[A-Za-z0-9]+$/),
			student_id: world.users.dave.id,
			course_id: world.courses.advanced.id,
			status: 'active',
			progress_percent: 0,
			enrolled_at: expect.stringMatching(/Z$/),
			completed_at: null,
			due_at: null,
			overdue: false,
			assignment_id: null,
			created_at: expect.any(String),
			updated_at: expect.any(String),
		});
		expect(Date.parse(reply.body.enrolled_at)).toBeGreaterThanOrEqual(before - 5);
		const fetched = await call(server, reply.headers.get('location')!, { key: world.keys.all });
		expect(fetched.body).toEqual(reply.body);
	});

	test('Content-Type with a charset parameter is accepted', async () => {
		const reply = await post(JSON.stringify({ student_id: world.users.erin.id, course_id: world.courses.intro.id }), {
			'content-type': 'application/json; charset=utf-8',
		});
		expect(reply.status).toBe(201);
	});
});

describe('409 already_enrolled', () => {
	test('names the existing enrollment', async () => {
		const existing = world.enrollments[0];
		const reply = await post({ student_id: existing.studentId, course_id: existing.courseId });
		expectProblem(reply, 409, 'already_enrolled');
		expect(reply.body.enrollment_id).toBe(existing.id);
	});

	test('whatever the existing enrollment status (withdrawn)', async () => {
		const withdrawn = world.enrollments[2];
		const reply = await post({ student_id: withdrawn.studentId, course_id: withdrawn.courseId });
		expectProblem(reply, 409, 'already_enrolled');
		expect(reply.body.enrollment_id).toBe(withdrawn.id);
	});

	test('80 concurrent identical requests: exactly one 201, the rest 409 with its id, no 5xx', async () => {
		const student = await User.create({ organizationId: world.acme.id, name: 'Racer', email: 'racer@acme.example', role: 'student', passwordHash: null });
		const body = { student_id: student.id, course_id: world.courses.safety.id };
		const replies = await Promise.all(Array.from({ length: 80 }, () => post(body)));
		const statuses = replies.map((r) => r.status);
		expect(statuses.filter((s) => s === 201)).toHaveLength(1);
		expect(statuses.filter((s) => s === 409)).toHaveLength(79);
		const created = replies.find((r) => r.status === 201)!.body.id;
		expect(new Set(replies.filter((r) => r.status === 409).map((r) => r.body.enrollment_id))).toEqual(new Set([created]));
		expect(await Enrollment.count({ where: { studentId: student.id, courseId: world.courses.safety.id } })).toBe(1);
	});
});

describe('400 invalid_request: one errors[] entry per problem', () => {
	test.each([
		['missing student_id', () => ({ course_id: world.courses.intro.id }), [['student_id', 'required']]],
		['missing both', () => ({}), [['student_id', 'required'], ['course_id', 'required']]],
		['wrong type', () => ({ student_id: 42, course_id: world.courses.intro.id }), [['student_id', 'invalid_type']]],
		['null', () => ({ student_id: world.users.bob.id, course_id: null }), [['course_id', 'invalid_type']]],
		['empty strings', () => ({ student_id: '', course_id: '' }), [['student_id', 'empty'], ['course_id', 'empty']]],
		[
			'unknown fields',
			() => ({ student_id: world.users.bob.id, course_id: world.courses.intro.id, status: 'completed', progress_percent: 50 }),
			[['status', 'unknown_field'], ['progress_percent', 'unknown_field']],
		],
		['wrong type and unknown', () => ({ student_id: [], course_id: world.courses.intro.id, x: 1 }), [['student_id', 'invalid_type'], ['x', 'unknown_field']]],
	])('%s', async (_name, body, expected) => {
		const reply = await post(body());
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors.map((e: { param: string; code: string }) => [e.param, e.code])).toEqual(expected);
		for (const e of reply.body.errors) expect(e.message).toEqual(expect.any(String));
	});

	test.each([
		['an array', '[]'],
		['an array of objects', '[{"student_id":"usr_a","course_id":"crs_b"}]'],
	])('a body that is %s', async (_name, raw) => {
		const reply = await post(raw);
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toHaveLength(1);
	});

	test('an empty JSON body', async () => {
		const reply = await post('');
		expect(reply.status).toBe(400);
	});
});

describe('400 malformed_json', () => {
	test.each(['{', '{"student_id": }', 'not json', '"a string"', 'null', '{"a":1}}'])('%s', async (raw) => {
		expectProblem(await post(raw), 400, 'malformed_json');
	});
});

describe('413 payload_too_large', () => {
	test('a body over 16 KiB', async () => {
		const big = JSON.stringify({ student_id: world.users.bob.id, course_id: 'crs_' + 'x'.repeat(17 * 1024) });
		expectProblem(await post(big), 413, 'payload_too_large');
	});

	test('a body just under 16 KiB is read (and then judged on its content)', async () => {
		const body = JSON.stringify({ student_id: world.users.bob.id, course_id: 'crs_' + 'x'.repeat(16 * 1024 - 80) });
		expect(Buffer.byteLength(body)).toBeLessThanOrEqual(16 * 1024);
		expectProblem(await post(body), 422, 'course_not_found');
	});
});

describe('415 unsupported_media_type', () => {
	const valid = () => JSON.stringify({ student_id: world.users.bob.id, course_id: world.courses.advanced.id });
	test.each(['text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json', 'multipart/form-data; boundary=x'])('%s', async (type) => {
		expectProblem(await post(valid(), { 'content-type': type }), 415, 'unsupported_media_type');
	});

	test('no Content-Type and no body is read as {} (SPEC §22): 400 naming what is missing, not 415', async () => {
		const reply = await call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.writeEnrollments });
		expectProblem(reply, 400, 'invalid_request');
		expect(JSON.stringify(reply.body)).toContain('student_id');
	});

	test('an unsupported charset', async () => {
		expectProblem(await post(valid(), { 'content-type': 'application/json; charset=latin-9-nope' }), 415, 'unsupported_media_type');
	});
});

describe('422 for records that cannot be enrolled', () => {
	test.each([
		['student_not_found: unknown id', () => ({ student_id: 'usr_nobody0000', course_id: world.courses.intro.id }), 'student_not_found', 'student_id'],
		['student_not_found: not an id at all', () => ({ student_id: 'alice', course_id: world.courses.intro.id }), 'student_not_found', 'student_id'],
		['student_not_found: another organization student', () => ({ student_id: world.globexRecords.student.id, course_id: world.courses.intro.id }), 'student_not_found', 'student_id'],
		['not_a_student: an instructor', () => ({ student_id: world.users.instructor.id, course_id: world.courses.intro.id }), 'not_a_student', 'student_id'],
		['not_a_student: a super admin', () => ({ student_id: world.users.superAdmin.id, course_id: world.courses.intro.id }), 'not_a_student', 'student_id'],
		['course_not_found: unknown id', () => ({ student_id: world.users.bob.id, course_id: 'crs_nothing000' }), 'course_not_found', 'course_id'],
		['course_not_found: another organization course', () => ({ student_id: world.users.bob.id, course_id: world.globexRecords.course.id }), 'course_not_found', 'course_id'],
		['course_not_published: a draft', () => ({ student_id: world.users.bob.id, course_id: world.courses.draft.id }), 'course_not_published', 'course_id'],
	])('%s', async (_name, body, code, param) => {
		const reply = await post(body());
		expectProblem(reply, 422, code);
		expect(reply.body.errors).toEqual([expect.objectContaining({ param })]);
	});

	test('another organization draft is "not found", not "not published"', async () => {
		expectProblem(await post({ student_id: world.users.bob.id, course_id: world.globexRecords.draft.id }), 422, 'course_not_found');
	});

	test('nothing was created by refused requests', async () => {
		expect(await Enrollment.count({ where: { studentId: world.users.bob.id } })).toBe(1);
	});
});
