import { ApiKey } from '../../server/src/db';
import { createKey, revokeKey, rotateKey } from '../../server/src/api-keys/lifecycle';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

/**
 * GET /api/v1/key (SPEC §19): any valid key learns who it is (its id, label, scopes and
 * organization), whatever its scopes; nothing else does. What the n8n credential test calls.
 */

let server: TestServer;
let world: World;
beforeAll(async () => {
	({ server, world } = await startApiServer());
});
afterAll(() => server.stop());

const whoAmI = (key?: string, query = '') => call(server, `/api/v1/key${query}`, { key });

async function keyRecord(label: string): Promise<ApiKey> {
	return (await ApiKey.findOne({ where: { label } }))!;
}

test('a key with one scope, whichever: its id, label, scopes and organization, nothing more', async () => {
	for (const [key, scopes] of [
		[world.keys.readCourses, ['read:courses']],
		[world.keys.writeEnrollments, ['write:enrollments']],
		[world.keys.readUsers, ['read:users']],
	] as const) {
		const reply = await whoAmI(key);
		expect(reply.status).toBe(200);
		expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
		expect(reply.headers.get('cache-control')).toBe('no-store');
		const record = await keyRecord(`test ${scopes.join(' ')}`);
		expect(reply.body).toEqual({
			id: record.id,
			label: `test ${scopes.join(' ')}`,
			scopes,
			grace_until: null,
			organization: { id: world.acme.id, name: 'Acme', slug: 'acme' },
		});
	}
});

test('every scope, in catalogue order; another organization’s key shows that organization only', async () => {
	const all = await whoAmI(world.keys.all);
	expect(all.body.scopes).toEqual(['read:users', 'read:courses', 'read:enrollments', 'write:enrollments', 'manage:webhooks', 'write:users']);
	const globex = await whoAmI(world.keys.globex);
	expect(globex.status).toBe(200);
	expect(globex.body.organization).toEqual({ id: world.globex.id, name: 'Globex', slug: 'globex' });
	expect(globex.body.id).not.toBe(all.body.id);
	// Neither answer carries the secret, its digest or its masked form.
	for (const reply of [all, globex]) {
		expect(reply.text).not.toMatch(/lms_|key_hash|keyHash|masked/);
	}
});

test('no key, a malformed key, a revoked key and a rotated-out key answer 401 with their codes', async () => {
	expectProblem(await whoAmI(), 401, 'missing_api_key');
	expectProblem(await whoAmI('lms_nope'), 401, 'invalid_api_key');
	expectProblem(await whoAmI(world.keys.all.slice(0, -1) + (world.keys.all.endsWith('A') ? 'B' : 'A')), 401, 'invalid_api_key');

	const { secret: toRevoke, apiKey: revoked } = await createKey({ organizationId: world.acme.id, label: 'to revoke', scopes: ['read:users'], actor: { kind: 'cli' } });
	expect((await whoAmI(toRevoke)).status).toBe(200);
	await revokeKey({ keyId: revoked.id, actor: { kind: 'cli' } });
	expectProblem(await whoAmI(toRevoke), 401, 'api_key_revoked');

	const { secret: toRotate, apiKey: rotated } = await createKey({ organizationId: world.acme.id, label: 'to rotate', scopes: ['read:courses'], actor: { kind: 'cli' } });
	const { secret: successor, apiKey: next } = await rotateKey({ keyId: rotated.id, actor: { kind: 'cli' } });
	expectProblem(await whoAmI(toRotate), 401, 'api_key_rotated');
	// The new key has the same label and scopes and its own id.
	expect((await whoAmI(successor)).body).toMatchObject({ id: next.id, label: 'to rotate', scopes: ['read:courses'] });
});

test('an organization off the Enterprise plan → 403 plan_required', async () => {
	expectProblem(await whoAmI(world.keys.initech), 403, 'plan_required');
});

test('strict like every endpoint: a query parameter → 400 naming it; another method → 405', async () => {
	const reply = await whoAmI(world.keys.all, '?verbose=1');
	expectProblem(reply, 400, 'invalid_request');
	expect(reply.body.errors).toEqual([expect.objectContaining({ param: 'verbose', code: 'unknown_parameter' })]);
	expect(reply.body.errors[0].message).toMatch(/accepts no query parameters/);
	const post = await call(server, '/api/v1/key', { method: 'POST', key: world.keys.all, body: {} });
	expectProblem(post, 405, 'method_not_allowed');
	expect(post.headers.get('allow')).toBe('GET');
});
