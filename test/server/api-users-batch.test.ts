import { createKey } from '../../server/src/api-keys/lifecycle';
import { Event, User } from '../../server/src/db';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

/**
 * POST /api/v1/users/batch (SPEC §18): up to 100 bodies of POST /api/v1/users, each answered in
 * order as its own POST would be, each in its own transaction with its user.created; a malformed
 * batch is a 400 that creates nobody. The runner is the enrollments' (http/batch.ts); this proves
 * the users' items through it.
 */

let server: TestServer;
let world: World;
let key: string;
beforeAll(async () => {
	({ server, world } = await startApiServer());
	key = (await createKey({ organizationId: world.acme.id, label: 'hr batch', scopes: ['write:users'], actor: { kind: 'cli' } })).secret;
});
afterAll(() => server.stop());

const postBatch = (body: unknown, headers: Record<string, string> = {}, apiKey = key) =>
	call(server, '/api/v1/users/batch', { method: 'POST', key: apiKey, body, headers });
const postOne = (body: unknown) => call(server, '/api/v1/users', { method: 'POST', key, body });
const withoutRequestId = (body: Record<string, unknown>) => ({ ...body, request_id: undefined });

test('created, refused and invalid items side by side, in order, each as its own POST would answer', async () => {
	const items = [
		{ name: 'Ada Batch', email: 'ada.batch@acme.example', external_id: 'B-1' },
		{ name: 'Alice Again', email: 'ALICE@acme.example' },
		{ name: 'Boss', email: 'boss.batch@acme.example', role: 'super_admin' },
		{ name: 'No Email' },
		// The same external id as item 0: answered as the second of two requests sent in this order.
		{ name: 'Ada Twin', email: 'ada.twin@acme.example', external_id: 'B-1' },
		{ name: 'Ian Batch', email: 'ian.batch@acme.example', role: 'instructor' },
	];
	const events = await Event.count({ where: { organizationId: world.acme.id, type: 'user.created' } });
	const reply = await postBatch({ items });
	expect(reply.status).toBe(200);
	expect(reply.body.data.map((d: { index: number; status: number }) => [d.index, d.status])).toEqual([
		[0, 201],
		[1, 409],
		[2, 422],
		[3, 400],
		[4, 409],
		[5, 201],
	]);
	const [ada, alice, boss, noEmail, twin, ian] = reply.body.data.map((d: { body: Record<string, unknown> }) => d.body);
	expect(ada).toMatchObject({ name: 'Ada Batch', external_id: 'B-1', status: 'active', role: 'student' });
	expect(await (await call(server, `/api/v1/users/${ada.id}`, { key: world.keys.all })).body).toEqual(ada);
	expect(alice).toMatchObject({ code: 'email_taken', user_id: world.users.alice.id });
	expect(boss).toMatchObject({ code: 'role_not_allowed' });
	expect(noEmail).toMatchObject({ code: 'invalid_request', errors: [expect.objectContaining({ param: 'email' })] });
	expect(twin).toMatchObject({ code: 'external_id_taken', user_id: ada.id });
	expect(ian).toMatchObject({ role: 'instructor' });
	// A refused item's body is exactly its single POST's problem.
	expectProblem(await postOne(items[2]), 422, 'role_not_allowed');
	expect(withoutRequestId((await postOne(items[2])).body)).toEqual(withoutRequestId(boss));
	expect(await Event.count({ where: { organizationId: world.acme.id, type: 'user.created' } })).toBe(events + 2);
});

test('a malformed envelope is a 400 that creates nobody', async () => {
	const count = await User.count();
	for (const body of [{}, { items: 'x' }, { items: [{ name: 'A', email: 'env1@acme.example' }, 'x'] }, { items: Array.from({ length: 101 }, (_, i) => ({ name: 'A', email: `env${i}@acme.example` })) }]) {
		expectProblem(await postBatch(body), 400, 'invalid_request');
	}
	expect(await User.count()).toBe(count);
});

test('needs write:users; with an Idempotency-Key a retried batch creates nobody twice', async () => {
	expectProblem(await postBatch({ items: [] }, {}, world.keys.readUsers), 403, 'insufficient_scope');
	const body = { items: [{ name: 'Once', email: 'once.batch@acme.example' }] };
	const first = await postBatch(body, { 'idempotency-key': 'users-batch-1' });
	const replay = await postBatch(body, { 'idempotency-key': 'users-batch-1' });
	expect(first.body.data[0].status).toBe(201);
	expect(replay.headers.get('idempotent-replayed')).toBe('true');
	expect(replay.text).toBe(first.text);
	expect(await User.count({ where: { emailLower: 'once.batch@acme.example' } })).toBe(1);
});
