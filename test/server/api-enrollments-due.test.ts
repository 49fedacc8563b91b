import { createKey } from '../../server/src/api-keys/lifecycle';
import { Enrollment, Event, User, WebhookDelivery, WebhookEndpoint } from '../../server/src/db';
import { runCli } from '../helpers/cli';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, feedCaughtUp, NO_LIMIT, startApiServer, type World } from './api-fixtures';
import { waitUntil } from '../helpers/wait';

/**
 * SPEC §17: `due_at` and `overdue` on enrollments, their filters, and `enrollment.overdue`, told
 * by the writes that make an enrollment overdue at once and by the server's own sweep (shortened
 * here with OVERDUE_SWEEP_MS) for deadlines that pass on their own.
 */

let server: TestServer;
let world: World;
// Webhook endpoints on 127.0.0.1 (port 9, nobody listens): only the deliveries the sweep writes are read.
beforeAll(async () => ({ server, world } = await startApiServer({ ...NO_LIMIT, OVERDUE_SWEEP_MS: '100', WEBHOOK_ALLOW_PRIVATE: 'true' })));
afterAll(() => server.stop());

const DAY = 86_400_000;
const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

let n = 0;
async function student(): Promise<User> {
	n += 1;
	return User.create({ organizationId: world.acme.id, name: `Due ${n}`, email: `due${n}@acme.example`, role: 'student', passwordHash: null });
}

const post = (body: unknown) => call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.writeEnrollments, body });
const patch = (id: string, body: unknown) => call(server, `/api/v1/enrollments/${id}`, { method: 'PATCH', key: world.keys.writeEnrollments, body });
const get = async (id: string) => (await call(server, `/api/v1/enrollments/${id}`, { key: world.keys.all })).body;

async function enroll(dueAt: string | null | undefined, course = world.courses.safety): Promise<{ id: string } & Record<string, unknown>> {
	const reply = await post({ student_id: (await student()).id, course_id: course.id, ...(dueAt === undefined ? {} : { due_at: dueAt }) });
	expect(reply.status).toBe(201);
	return reply.body;
}

/** The feed's events about this enrollment, oldest first. */
async function eventsOf(enrollmentId: string): Promise<Array<{ type: string; data: { object: Record<string, unknown> } }>> {
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const out = [];
	for (let after = ''; ; ) {
		const reply = await call(server, `/api/v1/events?type=enrollment.*&limit=100${after ? `&after=${after}` : ''}`, { key: world.keys.all });
		expect(reply.status).toBe(200);
		out.push(...reply.body.data);
		if (!reply.body.has_more) break;
		after = reply.body.data[reply.body.data.length - 1].id;
	}
	return out.filter((e) => e.data.object.id === enrollmentId);
}

const typesOf = async (id: string) => (await eventsOf(id)).map((e) => e.type);

/** Polls until `condition` holds (never a fixed sleep), failing after `timeoutMs`. */
const eventually = (what: string, condition: () => Promise<boolean>, timeout = 20_000) => waitUntil(condition, { what, timeout });

describe('due_at on POST and PATCH', () => {
	test('a future due_at: stored as the instant, in UTC; not overdue; one enrollment.created', async () => {
		const created = await enroll('2099-03-01T09:30:00+02:00');
		expect(created).toMatchObject({ due_at: '2099-03-01T07:30:00.000Z', overdue: false, status: 'active' });
		expect(await get(created.id)).toEqual(created);
		expect(await typesOf(created.id)).toEqual(['enrollment.created']);
	});

	test('no due_at, or null: no deadline, never overdue', async () => {
		expect(await enroll(undefined)).toMatchObject({ due_at: null, overdue: false });
		expect(await enroll(null)).toMatchObject({ due_at: null, overdue: false });
	});

	test('a due_at already past (a late assignment imported): overdue at once, with its one enrollment.overdue', async () => {
		const created = await enroll('2024-01-15T00:00:00Z');
		expect(created).toMatchObject({ due_at: '2024-01-15T00:00:00.000Z', overdue: true });
		const events = await eventsOf(created.id);
		expect(events.map((e) => e.type)).toEqual(['enrollment.created', 'enrollment.overdue']);
		expect(events[1].data.object).toMatchObject({ id: created.id, overdue: true, due_at: '2024-01-15T00:00:00.000Z' });
		// The sweep runs every 100 ms here: a later positive signal (another late enrollment told),
		// then this one is still told once.
		const later = await enroll('2024-02-01T00:00:00Z');
		await eventually('the later enrollment is told', async () => (await typesOf(later.id)).includes('enrollment.overdue'));
		expect(await typesOf(created.id)).toEqual(['enrollment.created', 'enrollment.overdue']);
	});

	test.each([
		['zone-less', '2026-12-31T17:00:00'],
		['a bare date', '2026-12-31'],
		['not a date', 'next friday'],
		['a day that does not exist', '2026-02-30T00:00:00Z'],
		['a number', 1798732800000],
		['an empty string', ''],
	])('POST with %s due_at: 400 invalid_request naming due_at, nothing created', async (_what, dueAt) => {
		const before = await Enrollment.count();
		const reply = await post({ student_id: (await student()).id, course_id: world.courses.safety.id, due_at: dueAt });
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual([expect.objectContaining({ param: 'due_at' })]);
		expect(reply.body.errors[0].message).toMatch(/ISO 8601|string|empty/);
		expect(await Enrollment.count()).toBe(before);
	});

	test('PATCH sets, moves and (null) clears due_at; updated_at moves; no event for a deadline alone', async () => {
		const created = await enroll(undefined);
		const set = await patch(created.id, { due_at: '2099-01-01T00:00:00Z' });
		expect(set.status).toBe(200);
		expect(set.body).toMatchObject({ due_at: '2099-01-01T00:00:00.000Z', overdue: false, status: 'active' });
		expect(Date.parse(set.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(String(created.updated_at)));
		// The same instant again changes nothing.
		expect((await patch(created.id, { due_at: '2099-01-01T01:00:00+01:00' })).body).toEqual(set.body);
		const cleared = await patch(created.id, { due_at: null });
		expect(cleared.body).toMatchObject({ due_at: null, overdue: false });
		expect(await typesOf(created.id)).toEqual(['enrollment.created']);
	});

	test('PATCH with a bad due_at: 400, nothing changed', async () => {
		const created = await enroll('2099-01-01T00:00:00Z');
		for (const dueAt of ['2099-01-01T00:00:00', '2099-13-01T00:00:00Z', true]) {
			const reply = await patch(created.id, { due_at: dueAt });
			expectProblem(reply, 400, 'invalid_request');
			expect(reply.body.errors[0].param).toBe('due_at');
		}
		expect(await get(created.id)).toEqual(created);
	});

	test('a completed enrollment: due_at cannot change (409 due_date_on_completed), nor be set by the request that completes it', async () => {
		const completed = world.enrollments[0];
		const before = await get(completed.id);
		const reply = await patch(completed.id, { due_at: '2099-01-01T00:00:00Z' });
		expectProblem(reply, 409, 'due_date_on_completed');
		expect(reply.body.detail).toMatch(/completed.*leave due_at out/);
		// Clearing a deadline it does not have changes nothing: 200, as any request that changes nothing.
		expect((await patch(completed.id, { due_at: null })).body).toEqual(before);
		expect(await get(completed.id)).toEqual(before);

		const active = await enroll(undefined);
		expectProblem(await patch(active.id, { status: 'completed', due_at: '2099-01-01T00:00:00Z' }), 409, 'due_date_on_completed');
		expect(await get(active.id)).toEqual(active);
		// Completing it afterwards keeps the deadline it had as history.
		const withDue = await enroll('2099-01-01T00:00:00Z');
		expect((await patch(withDue.id, { status: 'completed' })).body).toMatchObject({ status: 'completed', due_at: '2099-01-01T00:00:00.000Z', overdue: false });
		expectProblem(await patch(withDue.id, { due_at: null }), 409, 'due_date_on_completed');
	});

	test('PATCH a deadline into the past: told at once; another past deadline is not a second miss; a future one re-arms', async () => {
		const created = await enroll('2099-01-01T00:00:00Z');
		const late = await patch(created.id, { due_at: isoIn(-DAY) });
		expect(late.body.overdue).toBe(true);
		expect(await typesOf(created.id)).toEqual(['enrollment.created', 'enrollment.overdue']);
		await patch(created.id, { due_at: isoIn(-2 * DAY) });
		expect(await typesOf(created.id)).toEqual(['enrollment.created', 'enrollment.overdue']);
		expect((await patch(created.id, { due_at: isoIn(DAY) })).body.overdue).toBe(false);
		expect((await patch(created.id, { due_at: isoIn(-DAY) })).body.overdue).toBe(true);
		expect(await typesOf(created.id)).toEqual(['enrollment.created', 'enrollment.overdue', 'enrollment.overdue']);
	});

	test('only an active enrollment is overdue; reactivated after its deadline, it is told then', async () => {
		const created = await enroll('2099-01-01T00:00:00Z');
		await patch(created.id, { status: 'withdrawn' });
		const withdrawnLate = await patch(created.id, { due_at: isoIn(-DAY) });
		expect(withdrawnLate.body).toMatchObject({ status: 'withdrawn', overdue: false });
		expect(await typesOf(created.id)).toEqual(['enrollment.created', 'enrollment.withdrawn']);
		const reactivated = await patch(created.id, { status: 'active' });
		expect(reactivated.body.overdue).toBe(true);
		expect(await typesOf(created.id)).toEqual(['enrollment.created', 'enrollment.withdrawn', 'enrollment.reactivated', 'enrollment.overdue']);
	});
});

describe('due_at through POST /api/v1/enrollments/batch (the same create path)', () => {
	test('each item may carry due_at: future, past (told at once), malformed (its own 400)', async () => {
		const [a, b, c] = [await student(), await student(), await student()];
		const reply = await call(server, '/api/v1/enrollments/batch', {
			method: 'POST',
			key: world.keys.writeEnrollments,
			body: {
				items: [
					{ student_id: a.id, course_id: world.courses.intro.id, due_at: '2099-01-01T00:00:00Z' },
					{ student_id: b.id, course_id: world.courses.intro.id, due_at: '2024-01-01T00:00:00Z' },
					{ student_id: c.id, course_id: world.courses.intro.id, due_at: '2099-01-01' },
				],
			},
		});
		expect(reply.status).toBe(200);
		const [future, past, bad] = reply.body.data as Array<{ status: number; body: Record<string, unknown> & { id: string } }>;
		expect([future.status, past.status, bad.status]).toEqual([201, 201, 400]);
		expect(future.body).toMatchObject({ due_at: '2099-01-01T00:00:00.000Z', overdue: false });
		expect(past.body).toMatchObject({ due_at: '2024-01-01T00:00:00.000Z', overdue: true });
		expect(bad.body.errors).toEqual([expect.objectContaining({ param: 'due_at' })]);
		expect(await typesOf(past.body.id)).toEqual(['enrollment.created', 'enrollment.overdue']);
		expect(await Enrollment.count({ where: { studentId: c.id } })).toBe(0);
	});
});

describe('list filters due_before, due_after, overdue', () => {
	let ids: Record<'past' | 'soon' | 'far' | 'none' | 'completedPast', string>;
	beforeAll(async () => {
		const course = world.courses.advanced;
		const past = await enroll(isoIn(-3 * DAY), course);
		const soon = await enroll(isoIn(3 * DAY), course);
		const far = await enroll(isoIn(300 * DAY), course);
		const none = await enroll(undefined, course);
		const completedPast = await enroll(isoIn(-5 * DAY), course);
		expect((await patch(completedPast.id, { status: 'completed' })).status).toBe(200);
		ids = { past: past.id, soon: soon.id, far: far.id, none: none.id, completedPast: completedPast.id };
	});

	const list = async (query: string) => {
		const reply = await call(server, `/api/v1/enrollments?course_id=${world.courses.advanced.id}&per_page=100&${query}`, { key: world.keys.all });
		expect(reply.status).toBe(200);
		const mine = new Set(Object.values(ids));
		const found = (reply.body.data as Array<{ id: string }>).map((e) => e.id).filter((id) => mine.has(id));
		expect(reply.body.pagination.total).toBe(reply.body.data.length);
		return found.sort();
	};
	const sorted = (...names: Array<keyof typeof ids>) => names.map((k) => ids[k]).sort();

	test('due_before and due_after: strict bounds, any offset, no deadline never included', async () => {
		expect(await list(`due_before=${encodeURIComponent(isoIn(10 * DAY))}`)).toEqual(sorted('past', 'soon', 'completedPast'));
		expect(await list(`due_after=${encodeURIComponent(isoIn(0))}`)).toEqual(sorted('soon', 'far'));
		expect(await list(`due_after=${encodeURIComponent(isoIn(0))}&due_before=${encodeURIComponent(isoIn(10 * DAY))}`)).toEqual(sorted('soon'));
	});

	test('overdue=true: active and past due; overdue=false: every other', async () => {
		expect(await list('overdue=true')).toEqual(sorted('past'));
		expect(await list('overdue=false')).toEqual(sorted('soon', 'far', 'none', 'completedPast'));
		const all = await call(server, `/api/v1/enrollments?overdue=true&per_page=100`, { key: world.keys.all });
		expect(all.body.data.every((e: { overdue: boolean }) => e.overdue)).toBe(true);
	});

	test.each([
		['due_before=2026-12-31', 'due_before'],
		['due_after=2026-12-31T00:00:00', 'due_after'],
		['overdue=yes', 'overdue'],
		['overdue=', 'overdue'],
		['overdue=true&overdue=false', 'overdue'],
		['due_within=7', 'due_within'],
	])('?%s: 400 invalid_request naming %s', async (query, param) => {
		const reply = await call(server, `/api/v1/enrollments?${query}`, { key: world.keys.all });
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors.map((e: { param: string }) => e.param)).toEqual([param]);
	});
});

describe('enrollment.overdue from the sweep', () => {
	test('told within the deadline of a deadline passing on its own, once; moving it to the future re-arms it', async () => {
		const created = await enroll(isoIn(1_500));
		expect(created.overdue).toBe(false);
		const told = () => eventsOf(created.id).then((events) => events.filter((e) => e.type === 'enrollment.overdue'));
		await eventually('enrollment.overdue in the feed', async () => (await told()).length > 0);
		const [event] = await told();
		expect(event.data.object).toMatchObject({ id: created.id, overdue: true, status: 'active' });
		expect((await get(created.id)).overdue).toBe(true);

		// Re-armed: a new deadline a moment ahead passes too, and is told once more.
		expect((await patch(created.id, { due_at: isoIn(1_000) })).body.overdue).toBe(false);
		await eventually('the second enrollment.overdue', async () => (await told()).length === 2);
		// A positive signal after it (another deadline told), then still exactly two.
		const marker = await enroll(isoIn(200));
		await eventually('the marker is told', async () => (await typesOf(marker.id)).includes('enrollment.overdue'));
		expect(await told()).toHaveLength(2);
		expect(await Event.count({ where: { type: 'enrollment.overdue' } })).toBeGreaterThanOrEqual(3);
	});

	test('a deadline passing on a completed or withdrawn enrollment is not told', async () => {
		const completed = await enroll(isoIn(800));
		await patch(completed.id, { status: 'completed' });
		const withdrawn = await enroll(isoIn(800));
		await patch(withdrawn.id, { status: 'withdrawn' });
		const marker = await enroll(isoIn(1_000));
		await eventually('the marker is told', async () => (await typesOf(marker.id)).includes('enrollment.overdue'));
		expect(await typesOf(completed.id)).toEqual(['enrollment.created', 'enrollment.completed']);
		expect(await typesOf(withdrawn.id)).toEqual(['enrollment.created', 'enrollment.withdrawn']);
	});

	test('one pass over deadlines of two organizations: ids in deadline order, each subscribed endpoint one delivery per event, scopes honoured', async () => {
		const subscribe = async (key: string, events: string[]) => {
			const reply = await call(server, '/api/v1/webhook_endpoints', { method: 'POST', key, body: { url: 'http://127.0.0.1:9/hook', events } });
			expect(reply.status).toBe(201);
			return reply.body.id as string;
		};
		const usersOnly = await createKey({ organizationId: world.acme.id, label: 'hooks users', scopes: ['manage:webhooks', 'read:users'], actor: { kind: 'cli' } });
		const acmeAll = await subscribe(world.keys.all, ['*']);
		const acmeOverdue = await subscribe(world.keys.all, ['enrollment.overdue']);
		const acmeOther = await subscribe(world.keys.all, ['enrollment.completed']);
		// "*" for a key that cannot read enrollments: not sent enrollment.overdue.
		const acmeUsers = await subscribe(usersOnly.secret, ['*']);
		const globexOverdue = await subscribe(world.keys.globex, ['enrollment.overdue']);

		// 12 deadlines already past, the two organizations interleaved, written in one statement so
		// that one sweep pass finds them all.
		const globexStudent = (k: number) =>
			User.create({ organizationId: world.globex.id, name: `Globex due ${k}`, email: `due-batch${k}@globex.example`, role: 'student', passwordHash: null });
		const rows = [];
		for (let k = 0; k < 12; k++) {
			const acme = k % 2 === 0;
			rows.push({
				organizationId: acme ? world.acme.id : world.globex.id,
				studentId: (acme ? await student() : await globexStudent(k)).id,
				courseId: acme ? world.courses.safety.id : world.globexRecords.course.id,
				status: 'active' as const,
				progressPercent: 0,
				enrolledAt: new Date(),
				dueAt: new Date(Date.now() - 60_000 + k * 1_000),
			});
		}
		const due = await Enrollment.bulkCreate(rows);
		const ids = due.map((e) => e.id);
		const told = async () =>
			(await Event.findAll({ where: { type: 'enrollment.overdue' } }))
				.map((e) => ({ id: e.id, organizationId: e.organizationId, createdAt: e.createdAt.getTime(), of: (JSON.parse(e.data) as { id: string }).id }))
				.filter((e) => ids.includes(e.of));
		await eventually('12 enrollment.overdue', async () => (await told()).length === 12);
		const events = (await told()).sort((a, b) => (a.id < b.id ? -1 : 1));
		// One pass (one `now`), each event in its enrollment's organization; ids count each
		// organization's own events (events/ids.ts), so within each they ascend with the deadlines.
		expect(new Set(events.map((e) => e.createdAt)).size).toBe(1);
		const organizationOf = rows.map((r) => r.organizationId);
		for (const organizationId of [world.acme.id, world.globex.id]) {
			const mine = ids.filter((_, k) => organizationOf[k] === organizationId);
			expect(events.filter((e) => e.organizationId === organizationId).map((e) => e.of)).toEqual(mine);
		}
		expect(events).toHaveLength(ids.length);

		const deliveries = await WebhookDelivery.findAll({ where: { eventId: events.map((e) => e.id) } });
		const sentTo = (endpoint: string) =>
			deliveries
				.filter((d) => d.endpointId === endpoint)
				.map((d) => d.eventId)
				.sort();
		const acmeEvents = events.filter((e) => e.organizationId === world.acme.id).map((e) => e.id);
		const globexEvents = events.filter((e) => e.organizationId === world.globex.id).map((e) => e.id);
		expect(acmeEvents).toHaveLength(6);
		expect(sentTo(acmeAll)).toEqual(acmeEvents);
		expect(sentTo(acmeOverdue)).toEqual(acmeEvents);
		expect(sentTo(acmeOther)).toEqual([]);
		expect(sentTo(acmeUsers)).toEqual([]);
		expect(sentTo(globexOverdue)).toEqual(globexEvents);
		expect(deliveries).toHaveLength(18);
		expect(deliveries.every((d) => d.eventType === 'enrollment.overdue')).toBe(true);
		// Nobody listens on port 9: the endpoints go, so that no later test meets their failures.
		await WebhookEndpoint.destroy({ where: { id: [acmeAll, acmeOverdue, acmeOther, acmeUsers, globexOverdue] } });
	});

	test('the feed shows enrollment.overdue to read:enrollments, not to read:users', async () => {
		expect((await call(server, '/api/v1/events?type=enrollment.overdue', { key: world.keys.readEnrollments })).status).toBe(200);
		expectProblem(await call(server, '/api/v1/events?type=enrollment.overdue', { key: world.keys.readUsers }), 403, 'insufficient_scope');
	});
});

describe('the operator’s console: enrollments create|update --due', () => {
	const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: server.databaseUrl } });

	test('create with a deadline, move it, clear it, and the same refusals as the API', async () => {
		const s = await student();
		const created = await cli('enrollments', 'create', '--org', 'acme', '--student', s.id, '--course', world.courses.safety.id, '--due', '2099-06-30T17:00:00+02:00', '--json');
		expect(created).toMatchObject({ code: 0, stderr: '' });
		const record = JSON.parse(created.stdout);
		expect(record).toMatchObject({ student_id: s.id, status: 'active', due_at: '2099-06-30T15:00:00.000Z', overdue: false });
		expect(await get(record.id)).toEqual(record);

		const moved = await cli('enrollments', 'update', record.id, '--due', '2024-01-01T00:00:00Z');
		expect(moved).toMatchObject({ code: 0, stderr: '' });
		expect(moved.stdout).toMatch(/due 2024-01-01T00:00:00.000Z \(overdue\)/);
		expect(await typesOf(record.id)).toEqual(['enrollment.created', 'enrollment.overdue']);
		expect(JSON.parse((await cli('enrollments', 'update', record.id, '--due', 'none', '--json')).stdout)).toMatchObject({ due_at: null, overdue: false });

		for (const due of ['2099-06-30', '2099-06-30T17:00:00', 'soon']) {
			const bad = await cli('enrollments', 'update', record.id, '--due', due);
			expect(bad.code).not.toBe(0);
			expect(bad.stderr).toMatch(/^lms-server: --due must be an ISO 8601 date-time with an offset/);
		}
		await cli('enrollments', 'update', record.id, '--status', 'completed');
		const refused = await cli('enrollments', 'update', record.id, '--due', '2099-01-01T00:00:00Z');
		expect(refused.code).toBe(1);
		expect(refused.stderr).toMatch(/^lms-server: The enrollment is completed, so its due_at can no longer change/);
		const duplicate = await cli('enrollments', 'create', '--org', 'acme', '--student', s.id, '--course', world.courses.safety.id);
		expect(duplicate.stderr).toMatch(/already enrolled/);
	});
});
