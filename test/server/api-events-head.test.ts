import { database, Event } from '../../server/src/db';
import { writeTransaction } from '../../server/src/db/write-transaction';
import { recordEvent } from '../../server/src/events/record';
import { createKey, revokeKey } from '../../server/src/api-keys/lifecycle';
import { onPostgres } from '../helpers/database';
import type { TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';
import { call, expectProblem, feedCaughtUp, startApiServer, type World } from './api-fixtures';

/**
 * GET /api/v1/events/head (SPEC §19): the newest event the key can see, so that a reader starts
 * from now with one request; reading on from it misses nothing, whatever writers are doing.
 */

let server: TestServer;
let world: World;
beforeAll(async () => {
	({ server, world } = await startApiServer());
});
afterAll(() => server.stop());

const head = (key: string, query = '') => call(server, `/api/v1/events/head${query}`, { key });
const enroll = (studentId: string, courseId: string, key = world.keys.all) =>
	call(server, '/api/v1/enrollments', { method: 'POST', key, body: { student_id: studentId, course_id: courseId } });

async function userEvent(organizationId: string, id: string): Promise<void> {
	await writeTransaction(database(), (transaction) => recordEvent(transaction, { organizationId, type: 'user.created', object: { id } }));
}

/** Every event id the key reads from the feed, oldest first. */
async function feedIds(key: string, after?: string): Promise<string[]> {
	const out: string[] = [];
	for (let cursor = after; ; ) {
		const reply = await call(server, `/api/v1/events?limit=100${cursor ? `&after=${cursor}` : ''}`, { key });
		expect(reply.status).toBe(200);
		out.push(...reply.body.data.map((e: { id: string }) => e.id));
		if (!reply.body.has_more) return out;
		cursor = out[out.length - 1];
	}
}

/** Polls the head until it is `expected` (PostgreSQL serves an event once older transactions anywhere have ended). */
async function headBecomes(key: string, expected: string | null): Promise<void> {
	await waitUntil(async () => {
		const reply = await head(key);
		expect(reply.status).toBe(200);
		return reply.body.after === expected;
	}, { interval: 50, what: `the head at ${expected}` });
}

test('an empty feed → { "after": null }, for each key that can read it', async () => {
	for (const key of [world.keys.all, world.keys.readUsers, world.keys.readEnrollments, world.keys.globex]) {
		const reply = await head(key);
		expect(reply.status).toBe(200);
		expect(reply.headers.get('cache-control')).toBe('no-store');
		expect(reply.body).toEqual({ after: null });
	}
});

test('the newest event the key can see; the feed after it is empty, and then has exactly what came next', async () => {
	const first = await enroll(world.users.erin.id, world.courses.advanced.id);
	expect(first.status).toBe(201);
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const ids = await feedIds(world.keys.all);
	expect(ids.length).toBeGreaterThan(0);
	await headBecomes(world.keys.all, ids[ids.length - 1]);
	const { after } = (await head(world.keys.all)).body;
	expect(await feedIds(world.keys.all, after)).toEqual([]);

	const next = await enroll(world.users.dave.id, world.courses.safety.id);
	expect(next.status).toBe(201);
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const later = await feedIds(world.keys.all, after);
	expect(later).toHaveLength(1);
	const [event] = (await call(server, `/api/v1/events?after=${after}`, { key: world.keys.all })).body.data;
	expect(event).toMatchObject({ type: 'enrollment.created', data: { object: { id: next.body.id } } });
});

test('scopes: each key’s head is the newest event of the types it can read', async () => {
	await userEvent(world.acme.id, 'usr_headtest');
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const all = await feedIds(world.keys.all);
	const users = await feedIds(world.keys.readUsers);
	const enrollments = await feedIds(world.keys.readEnrollments);
	// The user event is the newest: a read:enrollments key does not see it, so its head is older.
	expect(users[users.length - 1]).toBe(all[all.length - 1]);
	await headBecomes(world.keys.readUsers, users[users.length - 1]);
	await headBecomes(world.keys.readEnrollments, enrollments[enrollments.length - 1]);
	await headBecomes(world.keys.all, all[all.length - 1]);
	expect(enrollments[enrollments.length - 1] < users[users.length - 1]).toBe(true);
});

test('another organization’s events never move a key’s head', async () => {
	const acmeHead = (await head(world.keys.all)).body.after;
	expect(acmeHead).toMatch(/^evt_/);
	expect((await head(world.keys.globex)).body).toEqual({ after: null });
	await userEvent(world.globex.id, 'usr_globexhead');
	await feedCaughtUp(server, world.keys.globex, world.globex.id);
	const globexIds = await feedIds(world.keys.globex);
	await headBecomes(world.keys.globex, globexIds[globexIds.length - 1]);
	expect((await head(world.keys.all)).body.after).toBe(acmeHead);
});

test('a key that can read no event type → 403 naming both scopes; revoked, missing and off-plan keys are refused', async () => {
	for (const key of [world.keys.readCourses, world.keys.writeEnrollments]) {
		const reply = await head(key);
		expectProblem(reply, 403, 'insufficient_scope');
		expect(reply.body.detail).toMatch(/read:enrollments or read:users/);
	}
	expectProblem(await call(server, '/api/v1/events/head'), 401, 'missing_api_key');
	expectProblem(await head('lms_nope'), 401, 'invalid_api_key');
	expectProblem(await head(world.keys.initech), 403, 'plan_required');
	const { secret, apiKey } = await createKey({ organizationId: world.acme.id, label: 'head revoked', scopes: ['read:users'], actor: { kind: 'cli' } });
	expect((await head(secret)).status).toBe(200);
	await revokeKey({ keyId: apiKey.id, actor: { kind: 'cli' } });
	expectProblem(await head(secret), 401, 'api_key_revoked');
});

test('strict query: any parameter → 400 naming it; another method → 405', async () => {
	const reply = await head(world.keys.all, '?type=user.created');
	expectProblem(reply, 400, 'invalid_request');
	expect(reply.body.errors).toEqual([expect.objectContaining({ param: 'type', code: 'unknown_parameter' })]);
	expectProblem(await call(server, '/api/v1/events/head', { method: 'DELETE', key: world.keys.all }), 405, 'method_not_allowed');
});

// SQLite has one writer at a time: an open write transaction would hold the API's write back too.
onPostgres(test)(
	'an older writer still open holds nothing back: the head moves to the younger event, and reading on from it gets the older one when it commits',
	async () => {
		await feedCaughtUp(server, world.keys.all, world.acme.id);
		let release!: () => void;
		const released = new Promise<void>((resolve) => (release = resolve));
		let written!: () => void;
		const wrote = new Promise<void>((resolve) => (written = resolve));
		const held = writeTransaction(database(), async (transaction) => {
			await recordEvent(transaction, { organizationId: world.acme.id, type: 'user.created', object: { id: 'usr_held' } });
			written();
			await released;
		});
		try {
			await wrote;
			// A younger transaction commits its event while the older one is open.
			expect((await enroll(world.users.carol.id, world.courses.advanced.id)).status).toBe(201);
			const stored = await Event.findAll({ where: { organizationId: world.acme.id }, order: [['id', 'ASC']] });
			const younger = stored[stored.length - 1].id;
			// Events are numbered as they commit (events/queries.ts): the younger one is served at once.
			await headBecomes(world.keys.all, younger);
			release();
			await held;
			// The older one, committed last, numbers after it: a reader that started at the head misses nothing.
			const readOn = (await call(server, `/api/v1/events?after=${younger}`, { key: world.keys.all })).body.data;
			expect(readOn.map((e: { data: { object: { id: string } } }) => e.data.object.id)).toEqual(['usr_held']);
			expect(readOn[0].id > younger).toBe(true);
		} finally {
			release();
			await held.catch(() => undefined);
		}
	},
);
