import type { TestServer } from '../helpers/server';
import { startApiServer, type World } from './api-fixtures';
import { ENTERPRISE, expectScimError, GROUP, LIST, scim, USER } from './scim-fixtures';

/** /scim/v2's discovery endpoints (RFC 7644 §4), its authentication, and that every error there is a SCIM error. */

let server: TestServer;
let world: World;
let scimKey: string;
beforeAll(async () => {
	({ server, world } = await startApiServer());
	scimKey = (await server.createKey('acme', ['read:users', 'write:users'], 'okta')).key;
});
afterAll(() => server.stop());

describe('authentication (the same keys as /api/v1)', () => {
	test('no key, a malformed or unknown key: 401 SCIM error with WWW-Authenticate', async () => {
		const none = await scim(server, '/Users');
		expectScimError(none, 401);
		expect(none.headers.get('www-authenticate')).toBe('Bearer realm="lms"');
		// Okta's "Check status 401" sends a bare non-token.
		expectScimError(await scim(server, '/Users', { headers: { authorization: 'non-token' } }), 401);
		const bad = await scim(server, '/Users', { key: 'lms_notarealkey' });
		expectScimError(bad, 401);
		expect(bad.headers.get('www-authenticate')).toContain('invalid_token');
	});

	test('a revoked key is 401; a key of a business-plan organization is 403', async () => {
		const { id, key } = await server.createKey('acme', ['read:users'], 'to revoke');
		await server.revokeKey(id);
		expectScimError(await scim(server, '/Users', { key }), 401);
		expectScimError(await scim(server, '/Users', { key: world.keys.initech }), 403);
	});

	test('reads need read:users, writes write:users: 403 naming the scope', async () => {
		const reply = await scim(server, '/Users', { key: world.keys.readCourses });
		expectScimError(reply, 403);
		expect(reply.body.detail).toContain('read:users');
		const write = await scim(server, '/Users', { method: 'POST', key: world.keys.readUsers, body: { schemas: [USER], userName: 'x@acme.example' } });
		expectScimError(write, 403);
		expect(write.body.detail).toContain('write:users');
		for (const method of ['PUT', 'PATCH', 'DELETE']) {
			expectScimError(await scim(server, `/Users/${world.users.alice.id}`, { method, key: world.keys.readUsers, body: method === 'DELETE' ? undefined : {} }), 403);
		}
	});
});

describe('discovery', () => {
	test('ServiceProviderConfig: patch, filter with maxResults, etag; no bulk, changePassword or sort; bearer tokens', async () => {
		const reply = await scim(server, '/ServiceProviderConfig', { key: scimKey });
		expect(reply.status).toBe(200);
		expect(reply.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
		expect(reply.body).toMatchObject({
			schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
			patch: { supported: true },
			bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
			filter: { supported: true, maxResults: 100 },
			changePassword: { supported: false },
			sort: { supported: false },
			etag: { supported: true },
			authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken', name: expect.any(String), description: expect.any(String) })],
			meta: { resourceType: 'ServiceProviderConfig', location: `${server.baseUrl}/scim/v2/ServiceProviderConfig` },
		});
	});

	test('ResourceTypes: User and Group (SPEC §20)', async () => {
		const reply = await scim(server, '/ResourceTypes', { key: scimKey });
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ schemas: [LIST], totalResults: 2, startIndex: 1, itemsPerPage: 2 });
		expect(reply.body.Resources).toEqual([
			expect.objectContaining({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'], id: 'User', name: 'User', endpoint: '/Users', schema: USER }),
			expect.objectContaining({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'], id: 'Group', name: 'Group', endpoint: '/Groups', schema: GROUP }),
		]);
		expect((await scim(server, '/ResourceTypes/User', { key: scimKey })).body).toMatchObject({ id: 'User', schemaExtensions: [{ schema: ENTERPRISE, required: false }] });
		expect((await scim(server, '/ResourceTypes/Group', { key: scimKey })).body).toMatchObject({ id: 'Group', endpoint: '/Groups', schema: GROUP });
		expectScimError(await scim(server, '/ResourceTypes/Role', { key: scimKey }), 404);
		expect((await scim(server, '/Groups', { key: scimKey })).body).toMatchObject({ schemas: [LIST], totalResults: 0 });
	});

	test('Schemas: the core User schema with exactly the attributes the LMS keeps, its enterprise extension, and the core Group schema', async () => {
		const reply = await scim(server, '/Schemas', { key: scimKey });
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ schemas: [LIST], totalResults: 3 });
		const [user, enterprise, group] = reply.body.Resources;
		expect(enterprise).toMatchObject({ id: ENTERPRISE, name: 'EnterpriseUser' });
		expect(enterprise.attributes.map((a: { name: string }) => a.name)).toEqual(['employeeNumber', 'department', 'title', 'manager']);
		expect((await scim(server, `/Schemas/${ENTERPRISE}`, { key: scimKey })).body.id).toBe(ENTERPRISE);
		expect(group).toMatchObject({ id: GROUP, name: 'Group' });
		expect(group.attributes.map((a: { name: string }) => a.name)).toEqual(['displayName', 'members']);
		expect((await scim(server, `/Schemas/${GROUP}`, { key: scimKey })).body.id).toBe(GROUP);
		expect(user).toMatchObject({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'], id: USER, name: 'User' });
		expect(user.attributes.map((a: { name: string }) => a.name)).toEqual(['userName', 'name', 'displayName', 'title', 'active', 'emails']);
		expect(user.attributes[0]).toMatchObject({ name: 'userName', type: 'string', required: true, caseExact: false, uniqueness: 'server' });
		expect((await scim(server, `/Schemas/${USER}`, { key: scimKey })).body.id).toBe(USER);
		expectScimError(await scim(server, '/Schemas/urn:ietf:params:scim:schemas:core:2.0:Role', { key: scimKey }), 404);
	});
});

describe('every error under /scim/v2 is a SCIM error', () => {
	test('unknown path 404, wrong method 405 with Allow', async () => {
		expectScimError(await scim(server, '/Nope', { key: scimKey }), 404);
		const reply = await scim(server, '/ServiceProviderConfig', { method: 'POST', key: scimKey, body: {} });
		expectScimError(reply, 405);
		expect(reply.headers.get('allow')).toBe('GET');
	});

	test('malformed JSON is 400 invalidSyntax; another media type 415; an oversized body 413; a JSON array 400', async () => {
		expectScimError(await scim(server, '/Users', { method: 'POST', key: scimKey, body: '{"schemas": [' }), 400, 'invalidSyntax');
		expectScimError(await scim(server, '/Users', { method: 'POST', key: scimKey, body: 'userName=x', headers: { 'content-type': 'text/plain' } }), 415);
		expectScimError(await scim(server, '/Users', { method: 'POST', key: scimKey, body: JSON.stringify({ schemas: [USER], userName: 'x'.repeat(20_000) }) }), 413);
		expectScimError(await scim(server, '/Users', { method: 'POST', key: scimKey, body: '[]' }), 400, 'invalidSyntax');
	});

	// Last in the file: a second server rebinds the models, and this one needs no database.
	test('the per-IP limit answers 429 as a SCIM error', async () => {
		const { startTestServer } = await import('../helpers/server');
		const limited = await startTestServer({ seed: false, env: { RATE_LIMIT_PER_MINUTE: '2' } });
		try {
			await scim(limited, '/ServiceProviderConfig');
			await scim(limited, '/ServiceProviderConfig');
			const last = await scim(limited, '/ServiceProviderConfig');
			expectScimError(last, 429);
			expect(last.headers.get('retry-after')).toMatch(/^\d+$/);
		} finally {
			await limited.stop();
		}
	});
});
