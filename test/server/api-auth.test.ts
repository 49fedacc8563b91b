import { revokeKey, rotateKey } from '../../server/src/api-keys/lifecycle';
import { ApiKey } from '../../server/src/db';
import { hashKey } from '../../server/src/api-keys/key-format';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

let server: TestServer;
let world: World;
beforeAll(async () => ({ server, world } = await startApiServer()));
afterAll(() => server.stop());

const INVALID_TOKEN = 'Bearer realm="lms", error="invalid_token"';
const idOf = async (secret: string) => (await ApiKey.findOne({ where: { keyHash: hashKey(secret) } }))!.id;

/** Every protected operation, with the scope it needs. */
const operations = (w: World) =>
	[
		['GET', '/api/v1/users', 'read:users'],
		['GET', `/api/v1/users/${w.users.alice.id}`, 'read:users'],
		['GET', '/api/v1/courses', 'read:courses'],
		['GET', `/api/v1/courses/${w.courses.intro.id}`, 'read:courses'],
		['GET', '/api/v1/enrollments', 'read:enrollments'],
		['GET', `/api/v1/enrollments/${w.enrollments[0].id}`, 'read:enrollments'],
		['POST', '/api/v1/enrollments', 'write:enrollments'],
		['GET', '/api/v1/certificates', 'read:enrollments'],
		['GET', `/api/v1/certificates/${w.certificates[0].id}`, 'read:enrollments'],
	] as const;

describe('401 missing_api_key', () => {
	test.each([
		['no Authorization header', {}],
		['Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
		['Bearer without a token', { authorization: 'Bearer ' }],
		['the bare key without Bearer', { authorization: 'lms_abc' }],
	])('%s → 401 with the plain Bearer challenge, on every operation', async (_name, headers) => {
		for (const [method, path] of operations(world)) {
			const reply = await call(server, path, { method, headers });
			expectProblem(reply, 401, 'missing_api_key');
			expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="lms"');
		}
	});
});

describe('401 invalid_api_key', () => {
	test.each([
		['garbage', 'not-a-key'],
		['right prefix, wrong length', 'lms_abc123'],
		['bad checksum', 'lms_' + 'a'.repeat(32) + 'ZZZZZZ'],
	])('%s', async (_name, token) => {
		const reply = await call(server, '/api/v1/users', { key: token });
		expectProblem(reply, 401, 'invalid_api_key');
		expect(reply.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
	});

	test('a well-formed key that was never issued', async () => {
		const { generateKey } = await import('../../server/src/api-keys/key-format');
		const reply = await call(server, '/api/v1/users', { key: generateKey() });
		expectProblem(reply, 401, 'invalid_api_key');
		expect(reply.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
	});

	test('the scheme name is case-insensitive (RFC 7235)', async () => {
		const reply = await call(server, '/api/v1/users', { headers: { authorization: `bearer ${world.keys.all}` } });
		expect(reply.status).toBe(200);
	});
});

describe('revoked and rotated keys fail on the very next request', () => {
	test('revoke → 401 api_key_revoked', async () => {
		const { createKey } = await import('../../server/src/api-keys/lifecycle');
		const { secret, apiKey } = await createKey({ organizationId: world.acme.id, label: 'to revoke', scopes: ['read:users'], actor: { kind: 'cli' } });
		expect((await call(server, '/api/v1/users', { key: secret })).status).toBe(200);
		await revokeKey({ keyId: apiKey.id, actor: { kind: 'cli' } });
		const reply = await call(server, '/api/v1/users', { key: secret });
		expectProblem(reply, 401, 'api_key_revoked');
		expect(reply.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
	});

	test('rotate → old key 401 api_key_rotated, new key works at once', async () => {
		const { createKey } = await import('../../server/src/api-keys/lifecycle');
		const { secret, apiKey } = await createKey({ organizationId: world.acme.id, label: 'to rotate', scopes: ['read:users'], actor: { kind: 'cli' } });
		expect((await call(server, '/api/v1/users', { key: secret })).status).toBe(200);
		const fresh = await rotateKey({ keyId: apiKey.id, actor: { kind: 'cli' } });
		const reply = await call(server, '/api/v1/users', { key: secret });
		expectProblem(reply, 401, 'api_key_rotated');
		expect(reply.headers.get('www-authenticate')).toBe(INVALID_TOKEN);
		expect((await call(server, '/api/v1/users', { key: fresh.secret })).status).toBe(200);
		expect(await idOf(fresh.secret)).toBe(fresh.apiKey.id);
	});
});

describe('403 plan_required', () => {
	test('a key of a business organization is refused on every operation', async () => {
		for (const [method, path] of operations(world)) {
			expectProblem(await call(server, path, { method, key: world.keys.initech }), 403, 'plan_required');
		}
	});

	test('a downgrade takes effect on the next request, an upgrade restores the same key', async () => {
		await world.globex.update({ plan: 'starter' });
		expectProblem(await call(server, '/api/v1/users', { key: world.keys.globex }), 403, 'plan_required');
		await world.globex.update({ plan: 'enterprise' });
		expect((await call(server, '/api/v1/users', { key: world.keys.globex })).status).toBe(200);
	});
});

describe('403 insufficient_scope', () => {
	const keyFor = (scope: string) =>
		({
			'read:users': world.keys.readUsers,
			'read:courses': world.keys.readCourses,
			'read:enrollments': world.keys.readEnrollments,
			'write:enrollments': world.keys.writeEnrollments,
		})[scope]!;

	test('each operation needs exactly its scope, and the detail and challenge name it', async () => {
		const scopes = ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'];
		for (const [method, path, needed] of operations(world)) {
			for (const held of scopes) {
				const body = method === 'POST' ? { student_id: world.users.erin.id, course_id: world.courses.safety.id } : undefined;
				const reply = await call(server, path, { method, key: keyFor(held), body });
				if (held === needed) {
					expect([200, 201, 409]).toContain(reply.status);
					continue;
				}
				expectProblem(reply, 403, 'insufficient_scope');
				expect(reply.body.detail).toContain(needed);
				expect(reply.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", scope="${needed}"`);
				expect(reply.headers.get('x-accepted-oauth-scopes')).toBe(needed);
				expect(reply.headers.get('x-oauth-scopes')).toBe(held);
			}
		}
	});
});

describe('order of checks: authentication, plan, scope, then validation', () => {
	test('no key and a bad query → 401, not 400', async () => {
		expectProblem(await call(server, '/api/v1/users?per_page=0'), 401, 'missing_api_key');
	});

	test('business plan and a missing scope → 403 plan_required', async () => {
		const { createKey } = await import('../../server/src/api-keys/lifecycle');
		await world.initech.update({ plan: 'enterprise' });
		const { secret } = await createKey({ organizationId: world.initech.id, label: 'courses only', scopes: ['read:courses'], actor: { kind: 'cli' } });
		await world.initech.update({ plan: 'business' });
		expectProblem(await call(server, '/api/v1/users', { key: secret }), 403, 'plan_required');
	});

	test('a missing scope and a bad query → 403, not 400', async () => {
		expectProblem(await call(server, '/api/v1/users?bogus=1', { key: world.keys.readCourses }), 403, 'insufficient_scope');
	});

	test('a missing scope and a bad body → 403, not 415 or 400', async () => {
		const reply = await call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.readEnrollments, body: '{nope', headers: { 'content-type': 'text/plain' } });
		expectProblem(reply, 403, 'insufficient_scope');
	});

	test('no key on a POST with a malformed body → 401', async () => {
		expectProblem(await call(server, '/api/v1/enrollments', { method: 'POST', body: '{nope' }), 401, 'missing_api_key');
	});
});

test('an authenticated response lists the key scopes (X-OAuth-Scopes)', async () => {
	const reply = await call(server, '/api/v1/courses', { key: world.keys.all });
	expect(reply.headers.get('x-oauth-scopes')).toBe('read:users, read:courses, read:enrollments, write:enrollments, manage:webhooks, write:users');
	expect(reply.headers.get('x-accepted-oauth-scopes')).toBe('read:courses');
});
