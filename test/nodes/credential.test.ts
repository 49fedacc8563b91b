import nock from 'nock';

import { testCredential } from '../helpers/n8n';
import { credentials, listPage, lmsApi, problem } from '../helpers/lms-api-mock';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

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
		['missing_api_key', 401, 'The LMS received no API key (missing_api_key)'],
		['invalid_api_key', 401, 'The API key is not valid. Check that it was copied whole'],
		['api_key_revoked', 401, 'This API key was revoked and no longer works. Ask a Super Admin to create a new key in Settings → API Keys.'],
		['api_key_rotated', 401, 'This API key was rotated and replaced by a new one. Use the new key shown when it was rotated.'],
		['plan_required', 403, 'The LMS API needs the Enterprise plan (plan_required)'],
		['rate_limited', 429, 'The LMS is rate limiting this IP address (rate_limited)'],
		['not_found', 404, 'No LMS API answers at this address (not_found)'],
	])('fails for %s with a message that says what to do', async (code, status, message) => {
		lmsApi()
			.get('/api/v1/users')
			.query(true)
			.reply(...problem(status, code, 'detail'));

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
