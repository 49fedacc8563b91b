import nock from 'nock';

import { testCredential } from '../helpers/n8n';
import { credentials, listPage, lmsApi, problem } from '../helpers/lms-api-mock';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
// restore(): the interceptor patches Node's http module, which later test files in this worker share.
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

/** The credential test as n8n runs it when the user clicks "Save" / "Retry" on the credential. */
describe('credential test', () => {
	it('passes for a key that can read users', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ per_page: '1' })
			.reply(200, listPage([{ id: 'usr_1' }], 1, 1, 150));

		await expect(testCredential(credentials)).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(scope.isDone()).toBe(true);
	});

	it('passes for a working key without read:users (403 insufficient_scope)', async () => {
		lmsApi()
			.get('/api/v1/users')
			.query(true)
			.reply(...problem(403, 'insufficient_scope', 'This API key lacks the read:users scope.'));

		await expect(testCredential(credentials)).resolves.toMatchObject({ status: 'OK' });
	});

	it.each([
		['missing_api_key', 401, 'The LMS received no API key (missing_api_key): paste the key into the API Key field'],
		// For the key codes the LMS's own sentence is the message (e2e.test.ts checks the live server's).
		['invalid_api_key', 401, 'The server says the key is not valid. (invalid_api_key)'],
		['api_key_revoked', 401, 'The server says the key was revoked. (api_key_revoked)'],
		['api_key_rotated', 401, 'The server says the key was rotated. (api_key_rotated)'],
		['plan_required', 403, "The server says: Enterprise only. (plan_required). The key's organization must be on the Enterprise plan"],
		['rate_limited', 429, 'The LMS is rate limiting this IP address (rate_limited): wait a minute and test again'],
		['not_found', 404, "An LMS answers, but not at http://lms.test/api/v1/users (not_found). Give the LMS's address without any path"],
		['internal_error', 500, 'The LMS could not answer right now: The server says: boom. (internal_error). Test again in a minute'],
	])('fails for %s with a message that says what to do', async (code, status, message) => {
		const details: Record<string, string> = {
			invalid_api_key: 'The server says the key is not valid.',
			api_key_revoked: 'The server says the key was revoked.',
			api_key_rotated: 'The server says the key was rotated.',
			plan_required: 'The server says: Enterprise only.',
			internal_error: 'The server says: boom.',
		};
		lmsApi()
			.get('/api/v1/users')
			.query(true)
			.reply(...problem(status, code, details[code] ?? 'detail'));

		const result = await testCredential(credentials);

		expect(result.status).toBe('Error');
		expect(result.message).toContain(message);
	});

	it('fails when nothing answers at the Base URL', async () => {
		// A real refused connection, not nock's simulated one.
		nock.enableNetConnect('127.0.0.1:9');
		const result = await testCredential({ ...credentials, baseUrl: 'http://127.0.0.1:9' });
		expect(result).toMatchObject({ status: 'Error', message: expect.stringMatching(/ECONNREFUSED|connect/) });
	});
});
