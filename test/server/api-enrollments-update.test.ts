import { Certificate, Course, Enrollment, Event, User } from '../../server/src/db';
import type { EnrollmentStatus } from '../../server/src/enrollments/model';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, feedCaughtUp, startApiServer, type World } from './api-fixtures';

/** PATCH /api/v1/enrollments/{id} (SPEC §10): every row of the transition table, and its events. */

let server: TestServer;
let world: World;
let validity: Record<'none' | 'days90' | 'days730', Course>;
beforeAll(async () => {
	({ server, world } = await startApiServer());
	const course = (title: string, certificateValidityDays: number | null) =>
		Course.create({ organizationId: world.acme.id, title, description: '', status: 'published', publishedAt: new Date(), certificateValidityDays });
	validity = { none: await course('Forever', null), days90: await course('Quarterly', 90), days730: await course('Two years', 730) };
});
afterAll(() => server.stop());

let n = 0;
/** A new student of acme enrolled in `course` with this status: history, written without events. */
async function enrollment(status: EnrollmentStatus, progressPercent = 40, course = validity.none): Promise<Enrollment> {
	n += 1;
	const student = await User.create({ organizationId: world.acme.id, name: `Learner ${n}`, email: `learner${n}@acme.example`, role: 'student', passwordHash: null });
	return Enrollment.create({
		organizationId: world.acme.id,
		studentId: student.id,
		courseId: course.id,
		status,
		progressPercent: status === 'completed' ? 100 : progressPercent,
		enrolledAt: new Date(Date.UTC(2025, 0, 1)),
		completedAt: status === 'completed' ? new Date(Date.UTC(2025, 1, 1)) : null,
		createdAt: new Date(Date.UTC(2025, 0, 1)),
		updatedAt: new Date(Date.UTC(2025, 0, 1)),
	});
}

const patch = (id: string, body: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) =>
	call(server, `/api/v1/enrollments/${id}`, { method: 'PATCH', key: opts.key ?? world.keys.writeEnrollments, body, headers: opts.headers });

/** The events of acme that concern this enrollment or its certificate, oldest first, as the feed shows them. */
async function eventsOf(enrollmentId: string): Promise<Array<{ id: string; type: string; data: { object: Record<string, unknown> } }>> {
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const out = [];
	let after: string | undefined;
	for (;;) {
		const reply = await call(server, `/api/v1/events?limit=100${after ? `&after=${after}` : ''}`, { key: world.keys.all });
		expect(reply.status).toBe(200);
		out.push(...reply.body.data);
		if (!reply.body.has_more) break;
		after = reply.body.data[reply.body.data.length - 1].id;
	}
	return out.filter((e) => e.data.object.id === enrollmentId || e.data.object.enrollment_id === enrollmentId);
}

const get = async (id: string) => (await call(server, `/api/v1/enrollments/${id}`, { key: world.keys.all })).body;

describe('the transition table', () => {
	test('active + progress 0–99 → active, updated_at moves, one enrollment.progressed with the record', async () => {
		const e = await enrollment('active', 40);
		const reply = await patch(e.id, { progress_percent: 65 });
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ id: e.id, status: 'active', progress_percent: 65, completed_at: null });
		expect(Date.parse(reply.body.updated_at)).toBeGreaterThan(Date.UTC(2025, 0, 1));
		expect(await get(e.id)).toEqual(reply.body);
		const events = await eventsOf(e.id);
		expect(events.map((x) => x.type)).toEqual(['enrollment.progressed']);
		expect(events[0].data.object).toEqual(reply.body);
		// Down is a change too (a learner may reset a course).
		expect((await patch(e.id, { progress_percent: 0, status: 'active' })).body.progress_percent).toBe(0);
		expect((await eventsOf(e.id)).map((x) => x.type)).toEqual(['enrollment.progressed', 'enrollment.progressed']);
	});

	test.each([
		['status: completed', { status: 'completed' }],
		['progress_percent: 100', { progress_percent: 100 }],
		['both', { status: 'completed', progress_percent: 100 }],
	])('active + %s → completed, progress 100, completed_at now, one certificate, two events', async (_name, body) => {
		const e = await enrollment('active', 70, validity.days90);
		const before = Date.now();
		const reply = await patch(e.id, body);
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ status: 'completed', progress_percent: 100 });
		expect(Date.parse(reply.body.completed_at)).toBeGreaterThanOrEqual(before - 5);

		const certificates = await call(server, `/api/v1/certificates?student_id=${e.studentId}`, { key: world.keys.all });
		expect(certificates.body.pagination.total).toBe(1);
		const certificate = certificates.body.data[0];
		expect(certificate).toMatchObject({ enrollment_id: e.id, course_id: validity.days90.id, issued_at: reply.body.completed_at });
		expect(Date.parse(certificate.expires_at) - Date.parse(certificate.issued_at)).toBe(90 * 86_400_000);

		const events = await eventsOf(e.id);
		expect(events.map((x) => x.type)).toEqual(['enrollment.completed', 'certificate.issued']);
		expect(events[0].data.object).toEqual(reply.body);
		expect(events[1].data.object).toEqual(certificate);
	});

	test('the certificate validity is the course’s: none never expires, 730 days', async () => {
		const forever = await enrollment('active', 10, validity.none);
		const twoYears = await enrollment('active', 10, validity.days730);
		await patch(forever.id, { status: 'completed' });
		await patch(twoYears.id, { status: 'completed' });
		const [a] = (await Certificate.findAll({ where: { enrollmentId: forever.id } })).map((c) => c.expiresAt);
		const [b] = await Certificate.findAll({ where: { enrollmentId: twoYears.id } });
		expect(a).toBeNull();
		expect(b.expiresAt!.getTime() - b.issuedAt.getTime()).toBe(730 * 86_400_000);
	});

	test('active + status: withdrawn → withdrawn, one enrollment.withdrawn', async () => {
		const e = await enrollment('active', 30);
		const reply = await patch(e.id, { status: 'withdrawn' });
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ status: 'withdrawn', progress_percent: 30, completed_at: null });
		expect((await eventsOf(e.id)).map((x) => [x.type, x.data.object.status])).toEqual([['enrollment.withdrawn', 'withdrawn']]);
	});

	test.each(['withdrawn', 'expired'] as const)('%s + status: active → active, one enrollment.reactivated', async (from) => {
		const e = await enrollment(from, 30);
		const reply = await patch(e.id, { status: 'active' });
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ status: 'active', progress_percent: 30 });
		expect((await eventsOf(e.id)).map((x) => x.type)).toEqual(['enrollment.reactivated']);
		// Then the learner carries on.
		expect((await patch(e.id, { progress_percent: 100 })).body.status).toBe('completed');
	});

	test.each([
		[{ status: 'active' }, 'active'],
		[{ status: 'withdrawn' }, 'withdrawn'],
		[{ progress_percent: 50 }, 'active'],
		[{ status: 'active', progress_percent: 20 }, 'active'],
	])('completed + %j → 409 invalid_transition naming from and to; nothing changes', async (body, to) => {
		const e = await enrollment('completed');
		const before = await get(e.id);
		const reply = await patch(e.id, body);
		expectProblem(reply, 409, 'invalid_transition');
		expect(reply.body).toMatchObject({ from: 'completed', to });
		expect(reply.body.detail).toContain(`from completed to ${to}`);
		expect(await get(e.id)).toEqual(before);
		expect(await eventsOf(e.id)).toEqual([]);
	});

	test.each([
		['withdrawn', { progress_percent: 50 }, 'withdrawn'],
		['expired', { progress_percent: 50 }, 'expired'],
		['withdrawn', { status: 'completed' }, 'completed'],
		['expired', { progress_percent: 100 }, 'completed'],
		['expired', { status: 'withdrawn' }, 'withdrawn'],
	] as const)('%s + %j → 409 invalid_transition; nothing changes', async (from, body, to) => {
		const e = await enrollment(from, 30);
		const before = await get(e.id);
		const reply = await patch(e.id, body);
		expectProblem(reply, 409, 'invalid_transition');
		expect(reply.body).toMatchObject({ from, to });
		expect(reply.body.detail).toMatch(/reactivate it first/);
		expect(await get(e.id)).toEqual(before);
		expect(await eventsOf(e.id)).toEqual([]);
	});
});

describe('a request that changes nothing answers 200 with the enrollment and emits nothing', () => {
	test.each([
		['completed', { status: 'completed' }],
		['completed', { progress_percent: 100 }],
		['active', { progress_percent: 40 }],
		['active', { status: 'active' }],
		['withdrawn', { status: 'withdrawn' }],
		['withdrawn', { status: 'withdrawn', progress_percent: 40 }],
		['expired', { progress_percent: 40 }],
	] as const)('%s + %j', async (status, body) => {
		const e = await enrollment(status, 40);
		const before = await get(e.id);
		for (let i = 0; i < 3; i++) {
			const reply = await patch(e.id, body);
			expect(reply.status).toBe(200);
			expect(reply.body).toEqual(before);
		}
		expect(await eventsOf(e.id)).toEqual([]);
	});

	test('a completion retried: the second answer is the same record, one certificate, two events in all', async () => {
		const e = await enrollment('active');
		const first = await patch(e.id, { status: 'completed' });
		const second = await patch(e.id, { status: 'completed' });
		expect(second.body).toEqual(first.body);
		expect(await Certificate.count({ where: { enrollmentId: e.id } })).toBe(1);
		expect((await eventsOf(e.id)).map((x) => x.type)).toEqual(['enrollment.completed', 'certificate.issued']);
	});
});

test('50 concurrent completions of one enrollment: all 200, one certificate, one enrollment.completed', async () => {
	const e = await enrollment('active', 90);
	const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => patch(e.id, i % 2 ? { status: 'completed' } : { progress_percent: 100 })));
	expect(replies.map((r) => r.status)).toEqual(Array(50).fill(200));
	expect(new Set(replies.map((r) => r.body.completed_at)).size).toBe(1);
	expect(await Certificate.count({ where: { enrollmentId: e.id } })).toBe(1);
	const events = await eventsOf(e.id);
	expect(events.map((x) => x.type).sort()).toEqual(['certificate.issued', 'enrollment.completed']);
});

describe('bad input changes nothing', () => {
	let e: Enrollment;
	let before: unknown;
	let eventCount: number;
	beforeAll(async () => {
		e = await enrollment('active', 40);
		before = await get(e.id);
		eventCount = await Event.count();
	});
	afterEach(async () => {
		expect(await get(e.id)).toEqual(before);
		expect(await Event.count()).toBe(eventCount);
	});

	test.each([
		[{ progress_percent: 101 }, 'progress_percent', 'out_of_range'],
		[{ progress_percent: -1 }, 'progress_percent', 'out_of_range'],
		[{ progress_percent: 50.5 }, 'progress_percent', 'invalid_integer'],
		[{ progress_percent: '50' }, 'progress_percent', 'invalid_type'],
		[{ progress_percent: null }, 'progress_percent', 'invalid_type'],
		[{ status: 'expired' }, 'status', 'invalid_value'],
		[{ status: 'done' }, 'status', 'invalid_value'],
		[{ status: 1 }, 'status', 'invalid_value'],
		[{ status: 'completed', progress_percent: 40 }, 'progress_percent', 'invalid_value'],
		[{ status: 'withdrawn', progress_percent: 100 }, 'progress_percent', 'invalid_value'],
		[{ status: 'completed', note: 'x' }, 'note', 'unknown_field'],
		['{"__proto__": 1, "status": "completed"}', '__proto__', 'unknown_field'],
		['{"constructor": 1, "status": "completed"}', 'constructor', 'unknown_field'],
		[{}, 'body', 'required'],
		[[], 'body', 'invalid_type'],
	])('%j → 400 naming %s', async (body, param, code) => {
		// Strings are sent as they are (JSON.stringify cannot write an own __proto__ key).
		const reply = await patch(e.id, typeof body === 'string' ? body : JSON.stringify(body));
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ param, code })]));
		expect(reply.body.detail).toEqual(expect.any(String));
	});

	test('malformed JSON → 400, a wrong Content-Type → 415, more than 16 KiB → 413', async () => {
		expectProblem(await patch(e.id, '{"status": '), 400, 'malformed_json');
		expectProblem(await patch(e.id, '{"status":"completed"}', { headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
		expectProblem(await patch(e.id, JSON.stringify({ status: 'completed', pad: 'x'.repeat(20_000) })), 413, 'payload_too_large');
	});

	test('another organization’s enrollment, an unknown id and a malformed id answer 404', async () => {
		for (const id of [world.globexRecords.enrollment.id, 'enr_doesnotexist', 'nope']) {
			expectProblem(await patch(id, { status: 'withdrawn' }), 404, 'not_found');
		}
		expect((await call(server, `/api/v1/enrollments/${world.globexRecords.enrollment.id}`, { key: world.keys.globex })).body.status).toBe('completed');
	});

	test('a key without write:enrollments → 403 naming it; no key → 401', async () => {
		const reply = await patch(e.id, { status: 'completed' }, { key: world.keys.readEnrollments });
		expectProblem(reply, 403, 'insufficient_scope');
		expect(reply.body.detail).toContain('write:enrollments');
		expectProblem(await call(server, `/api/v1/enrollments/${e.id}`, { method: 'PATCH', body: { status: 'completed' } }), 401, 'missing_api_key');
	});
});

test('405 lists PATCH among the allowed methods', async () => {
	const reply = await call(server, `/api/v1/enrollments/${world.enrollments[1].id}`, { method: 'DELETE', key: world.keys.all });
	expectProblem(reply, 405, 'method_not_allowed');
	expect(reply.headers.get('allow')).toBe('GET, PATCH');
});
