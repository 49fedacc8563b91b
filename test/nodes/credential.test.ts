import nock from 'nock';

import { LmsApi } from '../../credentials/LmsApi.credentials';
import { problems } from '../../server/src/common/problem';
import { testCredential } from '../helpers/n8n';
import { credentials, lmsApi, ORIGIN, problem } from '../helpers/lms-api-mock';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
// restore(): the interceptor patches Node's http module, which later test files in this worker share.
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

/** The one request the test makes: who the key is (SPEC §19). */
const probe = () => lmsApi().get('/api/v1/key');
const KEY = {
	id: 'key_0123456789abcdef',
	label: 'n8n',
	scopes: ['read:users'],
	organization: { id: 'org_0123456789abcdef', name: 'Acme', slug: 'acme' },
};

/** The credential test as n8n runs it when the user clicks "Save" / "Retry" on the credential. */
describe('credential test', () => {
	it.each([
		['a key with one scope', KEY],
		['a key with no read scope at all', { ...KEY, scopes: ['manage:webhooks'] }],
	])('passes for %s: the LMS said who the key is', async (_what, body) => {
		const scope = probe().reply(200, body);

		await expect(testCredential(credentials)).resolves.toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(scope.isDone()).toBe(true);
	});

	it('fails for a Base URL with a path after the LMS address (the LMS answers not_found before the key)', async () => {
		nock(ORIGIN).get('/api/api/v1/key').reply(...problem(404, 'not_found', 'No route'));
		const result = await testCredential({ ...credentials, baseUrl: `${ORIGIN}/api` });
		expect(result).toEqual({ status: 'Error', message: expect.stringContaining('remove a path such as /api') });
	});

	it('fails for a JSON answer that is not about the key (another API, an old LMS answer)', async () => {
		probe().reply(200, { data: [], has_more: false });
		await expect(testCredential(credentials)).resolves.toMatchObject({ status: 'Error', message: expect.stringMatching(/Base URL/) });
	});

	it.each([
		['missing_api_key', 401, 'The LMS received no API key: paste the key into the API Key field.'],
		['invalid_api_key', 401, problems.invalidApiKey().detail],
		['api_key_revoked', 401, problems.apiKeyRevoked().detail],
		['api_key_rotated', 401, problems.apiKeyRotated().detail],
		['api_key_expired', 401, problems.apiKeyExpired().detail],
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
		for (const problem of [problems.invalidApiKey(), problems.apiKeyRevoked(), problems.apiKeyRotated(), problems.apiKeyExpired(), problems.planRequired()]) {
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
