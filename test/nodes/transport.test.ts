import nock from 'nock';

import { LmsApi } from '../../credentials/LmsApi.credentials';
import { LmsCourses } from '../../nodes/LmsCourses/LmsCourses.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { lmsApiBaseUrl, MAX_RETRY_WAIT_SECONDS, retryAfterSeconds } from '../../nodes/shared/transport';
import { pinTypeVersion, runNode, testCredential } from '../helpers/n8n';
import { API_KEY, credentials, lmsApi, ORIGIN, users } from '../helpers/lms-api-mock';

// Version 1's parameters: these tests go on proving that workflows saved with version 1 run unchanged.
pinTypeVersion(1);

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
// restore(): the interceptor patches Node's http module, which later test files in this worker share.
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

describe('base URL', () => {
	it.each([
		['https://lms.example.com', 'https://lms.example.com/api/v1'],
		['https://lms.example.com/', 'https://lms.example.com/api/v1'],
		['https://lms.example.com/api/v1', 'https://lms.example.com/api/v1'],
		['https://lms.example.com/api/v1/', 'https://lms.example.com/api/v1'],
		['  https://lms.example.com//  ', 'https://lms.example.com/api/v1'],
		['http://localhost:3000', 'http://localhost:3000/api/v1'],
		['https://example.com/lms/', 'https://example.com/lms/api/v1'],
	])('%j becomes %j', (input, expected) => {
		expect(lmsApiBaseUrl(input)).toBe(expected);
	});

	it.each(['', 'lms.example.com', 'ftp://lms.example.com', 'https://'])('%j is refused', (input) => {
		expect(lmsApiBaseUrl(input)).toBeUndefined();
	});

	it.each(['https://lms.example.com', 'https://lms.example.com/api/v1/', 'https://example.com/lms/'])(
		'the credential test normalises %j the same way as the nodes',
		async (baseUrl) => {
			const scope = nock(new URL(lmsApiBaseUrl(baseUrl)!).origin)
				.get(`${new URL(lmsApiBaseUrl(baseUrl)!).pathname}/key`)
				.reply(200, { id: 'key_1', label: 'n8n', scopes: ['read:users'], organization: { id: 'org_1', name: 'Acme', slug: 'acme' } });
			await expect(testCredential({ baseUrl, apiKey: API_KEY })).resolves.toMatchObject({ status: 'OK' });
			expect(scope.isDone()).toBe(true);
		},
	);

	it('a trailing slash or a pasted /api/v1 reaches the same endpoint', async () => {
		for (const baseUrl of [`${ORIGIN}/`, `${ORIGIN}/api/v1`, `${ORIGIN}/api/v1/`]) {
			const scope = lmsApi().get('/api/v1/courses/crs_1').reply(200, { id: 'crs_1' });
			const { items, error } = await runNode(
				new LmsCourses(),
				{ operation: 'get', courseId: 'crs_1' },
				{ credentials: { ...credentials, baseUrl } },
			);
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.id)).toEqual(['crs_1']);
			expect(scope.isDone()).toBe(true);
		}
	});

	it('a Base URL without http(s):// fails with a message saying so, before any request', async () => {
		const { error } = await runNode(
			new LmsCourses(),
			{ operation: 'getAll', returnAll: true },
			{ credentials: { ...credentials, baseUrl: 'lms.example.com' } },
		);
		expect(error?.message).toBe('The Base URL in the LMS API credential is not a web address');
	});
});

describe('requests', () => {
	it('sends the key as a Bearer token, trimmed of the spaces pasting adds', async () => {
		const scope = lmsApi().get('/api/v1/users/usr_1').reply(200, users(1, 1)[0]);
		const { items } = await runNode(
			new LmsUsers(),
			{ operation: 'get', userId: 'usr_1' },
			{ credentials: { baseUrl: ORIGIN, apiKey: `  ${API_KEY}\n` } },
		);
		expect(items[0].json.id).toBe('usr_1');
		expect(scope.isDone()).toBe(true);
	});

	it('escapes IDs in the path and trims them', async () => {
		const scope = lmsApi().get('/api/v1/users/usr_a%2Fb').reply(200, { id: 'usr_a/b' });
		const { error } = await runNode(
			new LmsUsers(),
			{ operation: 'get', userId: ' usr_a/b ' },
			{ credentials },
		);
		expect(error).toBeUndefined();
		expect(scope.isDone()).toBe(true);
	});

	it('refuses an empty ID instead of listing the collection', async () => {
		const { error } = await runNode(new LmsUsers(), { operation: 'get', userId: '  ' }, { credentials });
		expect(error?.message).toBe('User ID is empty');
	});

	it('refuses an answer that is not from the LMS API (an HTML page at the Base URL)', async () => {
		lmsApi().get('/api/v1/users/usr_1').reply(200, '<html>Sign in</html>', { 'Content-Type': 'text/html' });

		const { error } = await runNode(new LmsUsers(), { operation: 'get', userId: 'usr_1' }, { credentials });

		expect(error?.message).toBe(
			`The answer from ${ORIGIN}/api/v1/users/usr_1 is not from the LMS API: check the Base URL in the credential`,
		);
	});

	it('asks for JSON', async () => {
		const scope = nock(ORIGIN, { reqheaders: { accept: /application\/json/ } })
			.get('/api/v1/users/usr_1')
			.reply(200, { id: 'usr_1' });
		await runNode(new LmsUsers(), { operation: 'get', userId: 'usr_1' }, { credentials });
		expect(scope.isDone()).toBe(true);
	});
});

describe('Retry-After', () => {
	const rateLimited = (headers: Record<string, unknown>) => ({ response: { status: 429, headers } });

	it('reads seconds', () => {
		expect(retryAfterSeconds(rateLimited({ 'retry-after': '7' }))).toBe(7);
		expect(retryAfterSeconds(rateLimited({ 'Retry-After': '0' }))).toBe(0);
	});

	it('reads an HTTP date', () => {
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(retryAfterSeconds(rateLimited({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30);
	});

	it('caps a long wait', () => {
		expect(retryAfterSeconds(rateLimited({ 'retry-after': '3600' }))).toBe(MAX_RETRY_WAIT_SECONDS);
	});

	it('falls back when the header is missing or garbage', () => {
		expect(retryAfterSeconds(rateLimited({}))).toBeGreaterThan(0);
		expect(retryAfterSeconds(rateLimited({ 'retry-after': 'soon' }))).toBeGreaterThan(0);
	});

	it('is not a retry for other statuses', () => {
		expect(retryAfterSeconds({ response: { status: 500, headers: { 'retry-after': '1' } } })).toBeUndefined();
		expect(retryAfterSeconds(new Error('socket hang up'))).toBeUndefined();
	});
});

describe('credential type', () => {
	it('sends the key as a Bearer token and marks it as a password', () => {
		const credential = new LmsApi();
		expect(credential.name).toBe('lmsApi');
		expect(credential.authenticate.properties.headers?.Authorization).toContain('Bearer');
		expect(credential.properties.find((p) => p.name === 'apiKey')?.typeOptions?.password).toBe(true);
	});
});
