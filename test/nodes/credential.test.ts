import nock from 'nock';

import { LmsApi } from '../../credentials/LmsApi.credentials';
import { problems } from '../../server/src/common/problem';
import { testCredential } from '../helpers/n8n';
import { credentials, lmsApi, problem } from '../helpers/lms-api-mock';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
// restore(): the interceptor patches Node's http module, which later test files in this worker share.
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

/** The one request the test makes: a user that cannot exist, so any LMS answers with a code. */
const probe = () => lmsApi().get('/api/v1/users/usr_credentialTest');

/** The credential test as n8n runs it when the user clicks "Save" / "Retry" on the credential. */
describe('credential test', () => {
	it.each([
		['a key that can read users (404 not_found)', 404, 'not_found'],
		['a working key without read:users (403 insufficient_scope)', 403, 'insufficient_scope'],
	])('passes for %s', async (_what, status, code) => {
		const scope = probe().reply(...problem(status, code, 'detail'));

		await expect(testCredential(credentials)).resolves.toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(scope.isDone()).toBe(true);
	});

	it.each([
		['missing_api_key', 401, 'The LMS received no API key: paste the key into the API Key field.'],
		['invalid_api_key', 401, problems.invalidApiKey().detail],
		['api_key_revoked', 401, problems.apiKeyRevoked().detail],
		['api_key_rotated', 401, problems.apiKeyRotated().detail],
		['plan_required', 403, problems.planRequired().detail],
		['rate_limited', 429, 'The LMS is rate limiting this IP address (100 requests a minute): wait a minute and test again.'],
		['internal_error', 500, 'The LMS could not answer right now: test again in a minute, or ask its operator.'],
	])('fails for %s with a sentence that says what to do', async (code, status, message) => {
		probe().reply(...problem(status, code, 'whatever the server says'));

		await expect(testCredential(credentials)).resolves.toEqual({ status: 'Error', message });
	});

	it("says the LMS's own sentences for a key that cannot work, word for word", () => {
		// The package cannot import the server, so the rules carry copies: this keeps them equal.
		const rules = new LmsApi().test.rules!.map((rule) => rule.properties as { value: unknown; message: string });
		for (const problem of [problems.invalidApiKey(), problems.apiKeyRevoked(), problems.apiKeyRotated(), problems.planRequired()]) {
			expect(rules.find((rule) => rule.value === problem.code)?.message).toBe(problem.detail);
		}
	});

	it('fails when something other than an LMS answers', async () => {
		probe().reply(200, '<!doctype html><title>Intranet</title>', { 'Content-Type': 'text/html' });
		await expect(testCredential(credentials)).resolves.toMatchObject({ status: 'Error', message: expect.stringMatching(/Base URL/) });
	});

	it('fails when nothing answers at the Base URL', async () => {
		// A real refused connection, not nock's simulated one.
		nock.enableNetConnect('127.0.0.1:9');
		const result = await testCredential({ ...credentials, baseUrl: 'http://127.0.0.1:9' });
		expect(result).toMatchObject({ status: 'Error', message: expect.stringMatching(/refused the connection|ECONNREFUSED/) });
	});
});
