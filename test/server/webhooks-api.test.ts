import { WebhookEndpoint } from '../../server/src/db';
import { checkWebhookUrl, classifyAddress } from '../../server/src/webhooks/url-policy';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, NO_LIMIT, startApiServer, type World } from './api-fixtures';
import { createKey } from '../../server/src/api-keys/lifecycle';

let server: TestServer;
let world: World;
let hooksKey: string;
let globexHooksKey: string;
beforeAll(async () => {
	({ server, world } = await startApiServer({ ...NO_LIMIT, WEBHOOK_ALLOW_PRIVATE: 'true' }));
	const issue = async (organizationId: string) =>
		(await createKey({ organizationId, label: 'n8n webhooks', scopes: ['read:users', 'read:enrollments', 'manage:webhooks'], actor: { kind: 'cli' } })).secret;
	hooksKey = await issue(world.acme.id);
	globexHooksKey = await issue(world.globex.id);
});
afterAll(() => server.stop());
afterEach(() => WebhookEndpoint.destroy({ where: {} }));

const create = (body: unknown, key = hooksKey) => call(server, '/api/v1/webhook_endpoints', { method: 'POST', key, body });
const valid = { url: 'http://127.0.0.1:9/hook', events: ['enrollment.completed'] };

describe('POST /api/v1/webhook_endpoints', () => {
	test('201 with the endpoint and its secret, shown in this answer only', async () => {
		const reply = await create({ ...valid, description: 'n8n: completions to Slack' });
		expect(reply.status).toBe(201);
		expect(reply.body).toEqual({
			id: expect.stringMatching(/^whe_[A-Za-z0-9]+$/),
			url: valid.url,
			events: ['enrollment.completed'],
			description: 'n8n: completions to Slack',
			status: 'enabled',
			created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*\.\d{3}Z$/),
			secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/),
		});
		expect(reply.headers.get('location')).toBe(`/api/v1/webhook_endpoints/${reply.body.id}`);

		const one = await call(server, `/api/v1/webhook_endpoints/${reply.body.id}`, { key: hooksKey });
		expect(one.status).toBe(200);
		const { secret, ...shown } = reply.body;
		expect(one.body).toEqual(shown);
		const list = await call(server, '/api/v1/webhook_endpoints', { key: hooksKey });
		expect(list.body).toEqual({ data: [shown], pagination: { page: 1, per_page: 50, total: 1 } });
		expect(list.headers.get('link')).toContain('rel="first"');
		for (const text of [one.text, list.text, server.logs()]) expect(text).not.toContain(secret);
	});

	test('"*" subscribes to every type; repeated types are kept once', async () => {
		expect((await create({ url: valid.url, events: ['*', 'user.created'] })).body.events).toEqual(['*']);
		expect((await create({ url: valid.url, events: ['user.created', 'user.created'] })).body.events).toEqual(['user.created']);
	});

	test.each([
		[{ events: ['user.created'] }, 'url'],
		[{ url: valid.url }, 'events'],
		[{ url: valid.url, events: [] }, 'events'],
		[{ url: valid.url, events: 'user.created' }, 'events'],
		[{ url: valid.url, events: ['user.deleted'] }, 'events.0'],
		[{ ...valid, secret: 'mine' }, 'secret'],
		['{"url":"http://127.0.0.1:9/hook","events":["*"],"__proto__":"x"}', '__proto__'],
	])('400 naming the field: %j', async (body, param) => {
		const reply = await create(body);
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors.map((e: { param: string }) => e.param)).toContain(param);
	});

	test.each([
		'ftp://127.0.0.1/hook',
		'file:///etc/passwd',
		'/relative/hook',
		'http://user:pass@127.0.0.1/hook',
		'http://169.254.169.254/latest/meta-data/',
		'http://[::ffff:169.254.169.254]/',
		'http://[::ffff:a9fe:a9fe]/',
		'http://[fe80::1]/',
		'http://0.0.0.0:8080/',
		'http://[::]/',
		'http://224.0.0.1/',
		'http://no-such-host.invalid/hook',
	])('422 invalid_webhook_url for %s, even with WEBHOOK_ALLOW_PRIVATE=true', async (url) => {
		const reply = await create({ url, events: ['*'] });
		expectProblem(reply, 422, 'invalid_webhook_url');
		expect(await WebhookEndpoint.count()).toBe(0);
	});

	test('private and loopback addresses are accepted with WEBHOOK_ALLOW_PRIVATE=true', async () => {
		for (const url of ['http://localhost:5678/webhook/x', 'http://10.1.2.3/h', 'http://[::1]:5678/h', 'https://192.168.0.10/h']) {
			expect({ url, status: (await create({ url, events: ['*'] })).status }).toEqual({ url, status: 201 });
		}
	});

	test('20 endpoints per organization; the 21st is 422 too_many_endpoints', async () => {
		for (let i = 0; i < 20; i++) expect((await create(valid)).status).toBe(201);
		expectProblem(await create(valid), 422, 'too_many_endpoints');
		// Another organization has its own 20.
		expect((await create(valid, globexHooksKey)).status).toBe(201);
	});

	test('40 concurrent creations leave exactly 20 endpoints, the rest 422, no 5xx', async () => {
		const replies = await Promise.all(Array.from({ length: 40 }, () => create(valid)));
		const statuses = replies.map((r) => r.status).sort();
		expect(statuses.filter((s) => s === 201)).toHaveLength(20);
		expect(statuses.filter((s) => s === 422)).toHaveLength(20);
		expect(await WebhookEndpoint.count({ where: { organizationId: world.acme.id } })).toBe(20);
	});

	test('needs manage:webhooks; the four other scopes do not grant it', async () => {
		for (const key of [world.keys.readUsers, world.keys.readEnrollments, world.keys.writeEnrollments]) {
			const reply = await create(valid, key);
			expectProblem(reply, 403, 'insufficient_scope');
			expect(reply.body.detail).toContain('manage:webhooks');
		}
	});
});

describe('GET and DELETE /api/v1/webhook_endpoints/{id}', () => {
	test('DELETE answers 204, then the endpoint is gone (404), a second DELETE is 404', async () => {
		const { id } = (await create(valid)).body;
		const del = await call(server, `/api/v1/webhook_endpoints/${id}`, { method: 'DELETE', key: hooksKey });
		expect(del.status).toBe(204);
		expectProblem(await call(server, `/api/v1/webhook_endpoints/${id}`, { key: hooksKey }), 404, 'not_found');
		expectProblem(await call(server, `/api/v1/webhook_endpoints/${id}`, { method: 'DELETE', key: hooksKey }), 404, 'not_found');
	});

	test("another organization's endpoint is 404 for reading and deleting, and survives", async () => {
		const { id } = (await create(valid, globexHooksKey)).body;
		expectProblem(await call(server, `/api/v1/webhook_endpoints/${id}`, { key: hooksKey }), 404, 'not_found');
		expectProblem(await call(server, `/api/v1/webhook_endpoints/${id}`, { method: 'DELETE', key: hooksKey }), 404, 'not_found');
		expect((await call(server, '/api/v1/webhook_endpoints', { key: hooksKey })).body.data).toEqual([]);
		expect(await WebhookEndpoint.count({ where: { id } })).toBe(1);
	});

	test('405 with Allow for other methods', async () => {
		const reply = await call(server, '/api/v1/webhook_endpoints/whe_x', { method: 'PUT', key: hooksKey });
		expectProblem(reply, 405, 'method_not_allowed');
		expect(reply.headers.get('allow')).toBe('GET, PATCH, DELETE');
	});
});

describe('URL policy', () => {
	test.each([
		['8.8.8.8', 'public'],
		['2001:4860:4860::8888', 'public'],
		['127.0.0.1', 'loopback'],
		['::1', 'loopback'],
		['10.0.0.1', 'private'],
		['172.16.5.4', 'private'],
		['192.168.1.1', 'private'],
		['fd00::1', 'private'],
		['::ffff:127.0.0.1', 'loopback'],
		['169.254.169.254', 'forbidden'],
		['::ffff:169.254.169.254', 'forbidden'],
		['fe80::1', 'forbidden'],
		['0.0.0.0', 'forbidden'],
		['::', 'forbidden'],
		['::a9fe:a9fe', 'forbidden'],
		['64:ff9b::a9fe:a9fe', 'forbidden'],
		['2002:a9fe:a9fe::1', 'forbidden'],
		['255.255.255.255', 'forbidden'],
	])('%s is %s', (address, verdict) => {
		expect(classifyAddress(address)).toBe(verdict);
	});

	test('without WEBHOOK_ALLOW_PRIVATE, loopback and private hosts are refused with what to do', async () => {
		await expect(checkWebhookUrl('http://localhost:5678/webhook', { allowPrivate: false })).rejects.toThrow(/not a public address.*WEBHOOK_ALLOWED_HOSTS/);
		await expect(checkWebhookUrl('http://10.0.0.8/webhook', { allowPrivate: false })).rejects.toThrow(/not a public address/);
		await expect(checkWebhookUrl('http://8.8.8.8/webhook', { allowPrivate: false })).resolves.toMatchObject({ address: '8.8.8.8', family: 4 });
	});
});
