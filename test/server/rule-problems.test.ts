import { generateKey } from '../../server/src/api-keys/key-format';
import { Event, User } from '../../server/src/db';
import { pruneEvents } from '../../server/src/events/retention';
import type { TestServer } from '../helpers/server';
import { call, startApiServer, type Reply, type World } from './api-fixtures';

/**
 * Every broken business rule the API can meet, answered byte for byte as SPEC §1–12 fix it.
 * The domain throws RuleError and knows no HTTP; http/rule-problems.ts chooses the answer. This
 * file pins each answer whole (status, headers, the exact JSON text but for the request id), so
 * moving a rule or rewording a domain message can never change the API unnoticed.
 */

let server: TestServer;
let world: World;
beforeAll(async () => {
	({ server, world } = await startApiServer());
});
afterAll(() => server.stop());

const T = 'https://lms.example/problems/';

/** The body's text with the request id taken out, and the headers a client reads. */
function answer(reply: Reply, ...headers: string[]) {
	expect(reply.headers.get('content-type')).toBe('application/problem+json');
	expect(reply.body.request_id).toBe(reply.headers.get('x-request-id'));
	return {
		status: reply.status,
		text: reply.text.replace(/,"request_id":"[^"]*"/, ''),
		...Object.fromEntries(headers.map((h) => [h, reply.headers.get(h)])),
	};
}

const enroll = (studentId: string, courseId: string) =>
	call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.all, body: { student_id: studentId, course_id: courseId } });
const patch = (id: string, body: object) => call(server, `/api/v1/enrollments/${id}`, { method: 'PATCH', key: world.keys.all, body });

describe('enrolling', () => {
	test('student_not_found', async () => {
		expect(answer(await enroll('usr_nobody', world.courses.intro.id))).toEqual({
			status: 422,
			text:
				`{"type":"${T}student_not_found","title":"Student not found","status":422,` +
				'"detail":"No user with this student_id exists in your organization. List users with GET /api/v1/users?role=student.",' +
				'"code":"student_not_found","errors":[{"param":"student_id","code":"not_found","message":"No such user in this organization."}]}',
		});
	});

	test('not_a_student (a / an)', async () => {
		const text = (role: string, article: string) =>
			`{"type":"${T}not_a_student","title":"Not a student","status":422,` +
			`"detail":"The user is ${article} ${role}, not a student; only students can be enrolled.",` +
			`"code":"not_a_student","errors":[{"param":"student_id","code":"not_a_student","message":"The user's role is ${role}."}]}`;
		expect(answer(await enroll(world.users.instructor.id, world.courses.intro.id))).toEqual({ status: 422, text: text('instructor', 'an') });
		expect(answer(await enroll(world.users.superAdmin.id, world.courses.intro.id))).toEqual({ status: 422, text: text('super_admin', 'a') });
	});

	test('course_not_found and course_not_published', async () => {
		expect(answer(await enroll(world.users.dave.id, 'crs_nothing'))).toEqual({
			status: 422,
			text:
				`{"type":"${T}course_not_found","title":"Course not found","status":422,` +
				'"detail":"No course with this course_id exists in your organization. List courses with GET /api/v1/courses.",' +
				'"code":"course_not_found","errors":[{"param":"course_id","code":"not_found","message":"No such course in this organization."}]}',
		});
		expect(answer(await enroll(world.users.dave.id, world.courses.draft.id))).toEqual({
			status: 422,
			text:
				`{"type":"${T}course_not_published","title":"Course not published","status":422,` +
				'"detail":"The course is a draft; students can be enrolled once it is published.",' +
				'"code":"course_not_published","errors":[{"param":"course_id","code":"not_published","message":"The course is not published."}]}',
		});
	});

	test('already_enrolled names the enrollment', async () => {
		const [first] = world.enrollments;
		expect(answer(await enroll(world.users.alice.id, world.courses.intro.id))).toEqual({
			status: 409,
			text:
				`{"type":"${T}already_enrolled","title":"Already enrolled","status":409,` +
				`"detail":"The student is already enrolled in this course: see /api/v1/enrollments/${first.id}.",` +
				`"code":"already_enrolled","enrollment_id":"${first.id}"}`,
		});
	});
});

describe('changing an enrollment', () => {
	test('a change that contradicts itself is invalid_request naming progress_percent', async () => {
		const active = world.enrollments[1];
		const text = (message: string) =>
			`{"type":"${T}invalid_request","title":"Invalid request","status":400,"detail":"The request has a problem: ${message}",` +
			`"code":"invalid_request","errors":[{"param":"progress_percent","code":"invalid_value","message":"${message}"}]}`;
		expect(answer(await patch(active.id, { status: 'completed', progress_percent: 50 }))).toEqual({
			status: 400,
			text: text('progress_percent must be 100, or left out, when status is completed.'),
		});
		expect(answer(await patch(active.id, { status: 'withdrawn', progress_percent: 100 }))).toEqual({
			status: 400,
			text: text('progress_percent 100 completes the enrollment; leave it out to make it withdrawn.'),
		});
	});

	test('invalid_transition names from and to', async () => {
		const completed = world.enrollments[0];
		expect(answer(await patch(completed.id, { status: 'withdrawn' }))).toEqual({
			status: 409,
			text:
				`{"type":"${T}invalid_transition","title":"Invalid transition","status":409,` +
				'"detail":"An enrollment cannot go from completed to withdrawn: a completed enrollment is final.",' +
				'"code":"invalid_transition","from":"completed","to":"withdrawn"}',
		});
	});

	test('an unknown, malformed or foreign enrollment is the same 404', async () => {
		const text =
			`{"type":"${T}not_found","title":"Not found","status":404,` +
			'"detail":"No enrollment exists at this address. Check the path and the id.","code":"not_found"}';
		for (const id of ['enr_doesnotexist', 'nonsense', world.globexRecords.enrollment.id]) {
			expect(answer(await patch(id, { progress_percent: 10 }))).toEqual({ status: 404, text });
		}
	});
});

describe('reading the event feed', () => {
	test('a cursor that names no event of the organization: invalid_request naming after', async () => {
		const reply = await call(server, '/api/v1/events?after=evt_nothing', { key: world.keys.all });
		const message = 'after must be the id of an event of your organization, as the feed returned it.';
		expect(answer(reply)).toEqual({
			status: 400,
			text:
				`{"type":"${T}invalid_request","title":"Invalid request","status":400,"detail":"The request has a problem: ${message}",` +
				`"code":"invalid_request","errors":[{"param":"after","code":"unknown_event","message":"${message}"}]}`,
		});
	});

	test('a cursor removed by retention: cursor_expired', async () => {
		const student = await User.create({ organizationId: world.acme.id, name: 'Gone', email: 'gone@acme.example', role: 'student', passwordHash: null });
		const created = await enroll(student.id, world.courses.intro.id);
		const event = (await Event.findAll({ where: { organizationId: world.acme.id } })).find((e) => e.data.includes(created.body.id))!;
		await Event.update({ createdAt: new Date(Date.now() - 40 * 86_400_000) }, { where: { id: event.id } });
		expect(await pruneEvents(30)).toBeGreaterThanOrEqual(1);
		expect(answer(await call(server, `/api/v1/events?after=${event.id}`, { key: world.keys.all }))).toEqual({
			status: 410,
			text:
				`{"type":"${T}cursor_expired","title":"Cursor expired","status":410,` +
				'"detail":"The event named by after is older than the feed keeps and was removed. Read the feed again without after, from the oldest event kept.",' +
				'"code":"cursor_expired"}',
		});
	});
});

describe('webhook endpoints', () => {
	const create = (url: string) =>
		call(server, '/api/v1/webhook_endpoints', { method: 'POST', key: world.keys.all, body: { url, events: ['*'] } });

	test('invalid_webhook_url repeats the reason as the field error', async () => {
		const reply = await create('https://169.254.169.254/hook');
		const detail = reply.body.detail as string;
		expect(answer(reply)).toEqual({
			status: 422,
			text:
				`{"type":"${T}invalid_webhook_url","title":"Invalid webhook URL","status":422,"detail":${JSON.stringify(detail)},` +
				`"code":"invalid_webhook_url","errors":[{"param":"url","code":"invalid_webhook_url","message":${JSON.stringify(detail)}}]}`,
		});
		expect(detail).toMatch(/169\.254\.169\.254/);
	});

	test('too_many_endpoints', async () => {
		for (let i = 0; i < 20; i++) expect((await create(`https://93.184.216.34/hook/${i}`)).status).toBe(201);
		expect(answer(await create('https://93.184.216.34/hook/21'))).toEqual({
			status: 422,
			text:
				`{"type":"${T}too_many_endpoints","title":"Too many webhook endpoints","status":422,` +
				'"detail":"An organization can have at most 20 webhook endpoints. Delete one you no longer use first.","code":"too_many_endpoints"}',
		});
	});
});

describe('authentication', () => {
	const withKey = (key: string) => call(server, '/api/v1/users', { key });
	const invalid =
		`{"type":"${T}invalid_api_key","title":"Invalid API key","status":401,` +
		'"detail":"The API key is not valid. Check that it was copied whole, or ask a Super Admin for a new key in Settings → API Keys.","code":"invalid_api_key"}';

	test('a malformed key and a well-formed unknown key: invalid_api_key', async () => {
		for (const key of ['nonsense', generateKey()]) {
			expect(answer(await withKey(key), 'www-authenticate')).toEqual({
				status: 401,
				text: invalid,
				'www-authenticate': 'Bearer realm="lms", error="invalid_token"',
			});
		}
	});

	test('a rotated key and a revoked key', async () => {
		const rotated = await server.createKey('acme', ['read:users'], 'to rotate');
		await server.rotateKey(rotated.id);
		expect(answer(await withKey(rotated.key), 'www-authenticate')).toEqual({
			status: 401,
			text:
				`{"type":"${T}api_key_rotated","title":"API key rotated","status":401,` +
				'"detail":"This API key was rotated and replaced by a new one. Use the new key shown when it was rotated.","code":"api_key_rotated"}',
			'www-authenticate': 'Bearer realm="lms", error="invalid_token"',
		});
		const revoked = await server.createKey('acme', ['read:users'], 'to revoke');
		await server.revokeKey(revoked.id);
		expect(answer(await withKey(revoked.key), 'www-authenticate')).toEqual({
			status: 401,
			text:
				`{"type":"${T}api_key_revoked","title":"API key revoked","status":401,` +
				'"detail":"This API key was revoked and no longer works. Ask a Super Admin to create a new key in Settings → API Keys.","code":"api_key_revoked"}',
			'www-authenticate': 'Bearer realm="lms", error="invalid_token"',
		});
	});

	test('a key of an organization without API access: plan_required', async () => {
		expect(answer(await withKey(world.keys.initech))).toEqual({
			status: 403,
			text:
				`{"type":"${T}plan_required","title":"Enterprise plan required","status":403,` +
				'"detail":"The REST API is available on the Enterprise plan only. Upgrade the organization to use its API keys.","code":"plan_required"}',
		});
	});
});
