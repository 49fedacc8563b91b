import { startTestServer, type TestServer } from '../helpers/server';
import { call, expectProblem } from './api-fixtures';
import { expectScimError, scim } from './scim-fixtures';

/**
 * SPEC §21: SCIM is limited per API key (SCIM_RATE_LIMIT_PER_MINUTE), not per IP, since identity
 * providers send every tenant's traffic from a few shared addresses; /api/v1 keeps the per-IP
 * limit. In the same store as the per-IP limit: memory here, Redis in the TEST_REDIS=1 run.
 */

const IP_LIMIT = 3;
const SCIM_LIMIT = 5;
let server: TestServer;
let a: string;
let b: string;
beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: String(IP_LIMIT), SCIM_RATE_LIMIT_PER_MINUTE: String(SCIM_LIMIT) } });
	a = (await server.createKey('acme', ['read:users', 'write:users'], 'okta')).key;
	b = (await server.createKey('globex', ['read:users', 'write:users'], 'entra')).key;
});
afterAll(() => server.stop());

describe('SCIM limit per key, in the store of the per-IP limit', () => {
	test('each key has its own SCIM budget, above the per-IP limit; over it: 429 in SCIM error schema with Retry-After', async () => {
		for (let i = 0; i < SCIM_LIMIT; i++) expect((await scim(server, '/Users?count=1', { key: a })).status).toBe(200);
		const over = await scim(server, '/Users?count=1', { key: a });
		expectScimError(over, 429);
		expect(over.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
		expect(over.body.detail).toMatch(/API key sent too many SCIM requests/);
		// Same address, another key (another tenant of the same provider): not throttled.
		for (let i = 0; i < SCIM_LIMIT; i++) expect((await scim(server, '/ServiceProviderConfig', { key: b })).status).toBe(200);
		expectScimError(await scim(server, '/Users', { key: b }), 429);
	});

	test('/api/v1 keeps the per-IP limit (SCIM traffic did not use it up); unauthenticated SCIM requests are counted by address', async () => {
		for (let i = 0; i < IP_LIMIT; i++) expect((await call(server, '/api/v1/users', { key: a })).status).toBe(200);
		expectProblem(await call(server, '/api/v1/users', { key: a }), 429, 'rate_limited');
		for (let i = 0; i < IP_LIMIT; i++) expectScimError(await scim(server, '/Users', { key: 'lms_not_a_key' }), 401);
		const over = await scim(server, '/Users', { key: 'lms_not_a_key' });
		expectScimError(over, 429);
		expect(over.body.detail).toMatch(/IP address/);
	});
});
