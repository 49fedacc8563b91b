import nock from 'nock';

import { LmsCourses } from '../../nodes/LmsCourses/LmsCourses.node';
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { MAX_ATTEMPTS } from '../../nodes/shared/transport';
import { pinTypeVersion, runNode } from '../helpers/n8n';
import { credentials, listPage, lmsApi, problem, users } from '../helpers/lms-api-mock';

// Version 1's parameters: these tests go on proving that workflows saved with version 1 run unchanged.
pinTypeVersion(1);

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
// restore(): the interceptor patches Node's http module, which later test files in this worker share.
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

const getUser = { operation: 'get', userId: 'usr_1' };

describe('429 Too Many Requests', () => {
	it('waits Retry-After, then retries and succeeds', async () => {
		const scope = lmsApi()
			.get('/api/v1/users/usr_1')
			.reply(...problem(429, 'rate_limited', 'Retry after 1 seconds.', {}, { 'Retry-After': '1' }))
			.get('/api/v1/users/usr_1')
			.reply(200, users(1, 1)[0]);

		const started = Date.now();
		const { items, error } = await runNode(new LmsUsers(), getUser, { credentials });

		expect(error).toBeUndefined();
		expect(items[0].json.id).toBe('usr_1');
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
		expect(scope.isDone()).toBe(true);
	});

	it('waits in the middle of Return All and carries on from the same page', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ page: '1', per_page: '100' })
			.reply(200, listPage(users(1, 100), 1, 100, 150))
			.get('/api/v1/users')
			.query({ page: '2', per_page: '100' })
			.reply(...problem(429, 'rate_limited', 'Slow down.', {}, { 'Retry-After': '0' }))
			.get('/api/v1/users')
			.query({ page: '2', per_page: '100' })
			.reply(200, listPage(users(101, 50), 2, 100, 150));

		const { items, error } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true }, { credentials });

		expect(error).toBeUndefined();
		expect(items).toHaveLength(150);
		expect(scope.isDone()).toBe(true);
	});

	it(`gives up after ${MAX_ATTEMPTS} attempts with a message that says what to do`, async () => {
		const scope = lmsApi()
			.get('/api/v1/users/usr_1')
			.times(MAX_ATTEMPTS)
			.reply(...problem(429, 'rate_limited', 'This IP address sent too many requests. Retry after 0 seconds.', {}, { 'Retry-After': '0' }));

		const { error } = await runNode(new LmsUsers(), getUser, { credentials });

		expect(error?.message).toBe(
			`The LMS kept answering "too many requests" after ${MAX_ATTEMPTS} attempts: run the workflow again in a minute (the limit is per IP address and shared with every other client calling the LMS from this n8n)`,
		);
		expect(error?.description).toContain('This IP address sent too many requests.');
		expect(error?.httpCode).toBe('429');
		expect(scope.isDone()).toBe(true);
	});
});

describe('error codes become messages that say what to do', () => {
	it.each([
		['missing_api_key', 401, 'The LMS received no API key: check the API key in the credential'],
		[
			'invalid_api_key',
			401,
			'The LMS does not recognise this API key: check the API key in the credential (copy the whole key, starting with lms_)',
		],
		[
			'api_key_revoked',
			401,
			'The key was revoked: create a new key in Settings → API Keys and paste it into the credential',
		],
		['api_key_rotated', 401, 'The key was rotated: paste the new key into the credential'],
		[
			'api_key_expired',
			401,
			'The key passed its expiry date: create a new key in Settings → API Keys and paste it into the credential',
		],
		[
			'plan_required',
			403,
			"The LMS API needs the Enterprise plan: the key's organization is not on it, so ask your LMS administrator to upgrade",
		],
	])('%s', async (code, status, message) => {
		const detail = `The server's own sentence for ${code}.`;
		// Exactly one request: a 401 is final, not retried (n8n's own helper would resend it).
		const scope = lmsApi().get('/api/v1/users/usr_1').reply(...problem(status, code, detail));

		const { error } = await runNode(new LmsUsers(), getUser, { credentials });

		expect(scope.isDone()).toBe(true);
		expect(nock.pendingMocks()).toEqual([]);

		expect(error?.message).toBe(message);
		expect(error?.description).toContain(detail);
		expect(error?.description).toContain('Request ID: req_test123.');
		expect(error?.httpCode).toBe(String(status));
	});

	it('insufficient_scope names the missing scope', async () => {
		lmsApi()
			.get('/api/v1/users/usr_1')
			.reply(
				...problem(
					403,
					'insufficient_scope',
					'This API key lacks the read:users scope. Create a key that includes read:users in Settings → API Keys.',
					{ required_scope: 'read:users' },
					{ 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="read:users"' },
				),
			);

		const { error } = await runNode(new LmsUsers(), getUser, { credentials });

		expect(error?.message).toBe(
			'The key lacks read:users: create a key with read:users in Settings → API Keys and paste it into the credential',
		);
	});

	it('insufficient_scope finds the scope in WWW-Authenticate when the body does not carry it', async () => {
		lmsApi()
			.get('/api/v1/courses/crs_1')
			.reply(
				...problem(403, 'insufficient_scope', 'Missing scope.', {}, {
					'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="read:courses"',
				}),
			);

		const { error } = await runNode(new LmsCourses(), { operation: 'get', courseId: 'crs_1' }, { credentials });

		expect(error?.message).toMatch(/^The key lacks read:courses: /);
	});

	it('not_found on a record names the record and the ID', async () => {
		lmsApi().get('/api/v1/users/usr_missing').reply(...problem(404, 'not_found', 'No user exists at this address.'));

		const { error } = await runNode(new LmsUsers(), { operation: 'get', userId: 'usr_missing' }, { credentials });

		expect(error?.message).toBe(
			"User usr_missing was not found: check the User ID (it must exist in the key's organization)",
		);
	});

	it('not_found on a course mentions drafts, which the API hides', async () => {
		lmsApi().get('/api/v1/courses/crs_draft').reply(...problem(404, 'not_found', 'No course exists at this address.'));

		const { error } = await runNode(new LmsCourses(), { operation: 'get', courseId: 'crs_draft' }, { credentials });

		expect(error?.message).toBe(
			"Course crs_draft was not found: check the Course ID (it must exist and be published in the key's organization)",
		);
	});

	it('a 404 that is not the LMS points at the Base URL', async () => {
		lmsApi().get('/api/v1/users/usr_1').reply(404, '<html>Not Found</html>', { 'Content-Type': 'text/html' });

		const { error } = await runNode(new LmsUsers(), getUser, { credentials });

		expect(error?.message).toBe('The LMS API was not found at this address: check the Base URL in the credential');
	});

	it('400 lists every rejected parameter', async () => {
		lmsApi()
			.get('/api/v1/users')
			.query(true)
			.reply(
				...problem(400, 'invalid_request', 'The request has 2 problems.', {
					errors: [
						{ param: 'role', code: 'invalid', message: 'role must be one of student, instructor, admin, super_admin.' },
						{ param: 'email', code: 'invalid', message: 'email must be an email address.' },
					],
				}),
			);

		const { error } = await runNode(
			new LmsUsers(),
			{ operation: 'getAll', returnAll: false, limit: 5, filters: { role: 'teacher', email: 'x' } },
			{ credentials },
		);

		expect(error?.message).toBe(
			'The LMS rejected the request: role: role must be one of student, instructor, admin, super_admin.; email: email must be an email address.',
		);
	});

	it('a 500 asks to retry and to quote the request ID', async () => {
		lmsApi().get('/api/v1/users/usr_1').reply(...problem(500, 'internal_error', 'Something went wrong on our side.'));

		const { error } = await runNode(new LmsUsers(), getUser, { credentials });

		expect(error?.message).toMatch(/^The LMS failed to process the request \(HTTP 500\): try again/);
		expect(error?.description).toContain('req_test123');
	});

	it('an unreachable LMS names the address to check', async () => {
		// A real refused connection, not nock's simulated one.
		nock.enableNetConnect('127.0.0.1:9');
		const { error } = await runNode(new LmsUsers(), getUser, {
			credentials: { ...credentials, baseUrl: 'http://127.0.0.1:9' },
		});

		expect(error?.message).toBe(
			'Could not reach the LMS at http://127.0.0.1:9/api/v1: check the Base URL in the credential and that the LMS is running',
		);
	});

	it('errors never contain the key', async () => {
		lmsApi().get('/api/v1/users/usr_1').reply(...problem(401, 'invalid_api_key', 'The API key is not valid.'));

		const { error } = await runNode(new LmsUsers(), getUser, { credentials });

		expect(`${error?.message} ${error?.description}`).not.toContain(credentials.apiKey);
	});
});

describe('Continue On Fail', () => {
	it('turns a failing item into an error item, paired with it, and carries on with the next', async () => {
		lmsApi()
			.get('/api/v1/users/usr_1')
			.reply(200, users(1, 1)[0])
			.get('/api/v1/users/usr_404')
			.reply(...problem(404, 'not_found', 'No user exists at this address.'))
			.get('/api/v1/users/usr_3')
			.reply(200, users(3, 1)[0]);

		const { items, error } = await runNode(
			new LmsUsers(),
			{ operation: 'get', userId: '={{ $json.id }}' },
			{ credentials, continueOnFail: true, items: [{ id: 'usr_1' }, { id: 'usr_404' }, { id: 'usr_3' }] },
		);

		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[0]).toMatchObject({ json: { id: 'usr_1' }, pairedItem: { item: 0 } });
		expect(items[1]).toMatchObject({
			json: { error: "User usr_404 was not found: check the User ID (it must exist in the key's organization)" },
			pairedItem: { item: 1 },
		});
		expect(items[1].error?.description).toContain('No user exists at this address.');
		expect(items[2]).toMatchObject({ json: { id: 'usr_3' }, pairedItem: { item: 2 } });
	});

	it('"Continue (using error output)" sends the failing item down the error output', async () => {
		lmsApi()
			.get('/api/v1/users/usr_1')
			.reply(200, users(1, 1)[0])
			.get('/api/v1/users/usr_404')
			.reply(...problem(404, 'not_found', 'No user exists at this address.'));

		const { items, errorItems, error } = await runNode(
			new LmsUsers(),
			{ operation: 'get', userId: '={{ $json.id }}' },
			{ credentials, onError: 'continueErrorOutput', items: [{ id: 'usr_1' }, { id: 'usr_404' }] },
		);

		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual(['usr_1']);
		expect(errorItems).toHaveLength(1);
		expect(errorItems[0]).toMatchObject({
			json: { error: "User usr_404 was not found: check the User ID (it must exist in the key's organization)" },
			pairedItem: { item: 1 },
		});
	});

	it('without it, the first failure stops the node and names the item', async () => {
		lmsApi()
			.get('/api/v1/users/usr_1')
			.reply(200, users(1, 1)[0])
			.get('/api/v1/users/usr_404')
			.reply(...problem(404, 'not_found', 'No user exists at this address.'));

		const { items, error } = await runNode(
			new LmsUsers(),
			{ operation: 'get', userId: '={{ $json.id }}' },
			{ credentials, items: [{ id: 'usr_1' }, { id: 'usr_404' }, { id: 'usr_3' }] },
		);

		expect(items).toEqual([]);
		expect(error?.message).toMatch(/^User usr_404 was not found/);
		expect(error?.context?.itemIndex).toBe(1);
	});

	it('also covers parameter errors, such as an ID mapped from an empty field', async () => {
		const { items } = await runNode(
			new LmsEnrollments(),
			{ operation: 'get', enrollmentId: '={{ $json.enrollment_id }}' },
			{ credentials, continueOnFail: true, items: [{ enrollment_id: '' }] },
		);

		expect(items).toMatchObject([{ json: { error: 'Enrollment ID is empty' }, pairedItem: { item: 0 } }]);
	});
});

describe('Custom API Call on an LMS node', () => {
	it('stops with where to make the call; with Continue On Fail every input item carries that error on', async () => {
		const stopped = await runNode(new LmsUsers(), { operation: '__CUSTOM_API_CALL__' }, { credentials, items: [{}, {}] });
		expect(stopped.error?.message).toBe('Custom API Call runs in the HTTP Request node, with the LMS API credential');
		const carried = await runNode(new LmsUsers(), { operation: '__CUSTOM_API_CALL__' }, { credentials, items: [{}, {}], continueOnFail: true });
		expect(carried.error).toBeUndefined();
		expect(carried.items.map((item) => [item.json, item.pairedItem])).toEqual([
			[{ error: 'Custom API Call runs in the HTTP Request node, with the LMS API credential' }, { item: 0 }],
			[{ error: 'Custom API Call runs in the HTTP Request node, with the LMS API credential' }, { item: 1 }],
		]);
	});
});
