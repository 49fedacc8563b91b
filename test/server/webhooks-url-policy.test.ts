import pino from 'pino';

import { loadConfig } from '../../server/src/config';
import { WebhookEndpoint } from '../../server/src/db';
import { warnOfOpenWebhooks } from '../../server/src/server';
import { checkWebhookUrl, classifyAddress } from '../../server/src/webhooks/url-policy';
import { startReceiver, type Receiver } from '../helpers/receiver';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, NO_LIMIT, startApiServer, type World } from './api-fixtures';

/**
 * Issue 27, finding 5: public by allow-list (IPv4 public unicast, IPv6 2000::/3, minus IANA's
 * special-purpose registries); refusals that never echo what a name resolved to; the URL stored
 * as parsed; WEBHOOK_ALLOWED_HOSTS for exactly the private destinations an operator names.
 */
describe('the allow-list', () => {
	test.each([
		// Passed as public by the old deny-list.
		['64:ff9b:1::a9fe:a9fe', 'forbidden'], // local-use NAT64 (RFC 8215): reaches 169.254.169.254
		['fec0::1', 'forbidden'], // deprecated site-local
		['3fff::1', 'forbidden'], // documentation (RFC 9637)
		['2001:2::1', 'forbidden'], // benchmarking
		['2001:20::1', 'forbidden'], // ORCHIDv2
		['2620:4f:8000::1', 'forbidden'], // AS112
		['192.0.0.170', 'forbidden'],
		['192.31.196.1', 'forbidden'],
		['192.175.48.1', 'forbidden'],
		['240.0.0.1', 'forbidden'],
		['5f00::1', 'forbidden'],
		['100::1', 'forbidden'],
		// Still right.
		['8.8.8.8', 'public'],
		['1.1.1.1', 'public'],
		['2001:4860:4860::8888', 'public'],
		['2a00:1450:4001::1', 'public'],
		['127.0.0.1', 'loopback'],
		['::1', 'loopback'],
		['::ffff:127.0.0.1', 'loopback'],
		['10.0.0.1', 'private'],
		['100.64.0.1', 'private'],
		['fd00::1', 'private'],
		['169.254.169.254', 'forbidden'],
		['::ffff:169.254.169.254', 'forbidden'],
		['64:ff9b::a9fe:a9fe', 'forbidden'],
		['2002:a9fe:a9fe::1', 'forbidden'],
		['2001:0:a9fe:a9fe::1', 'forbidden'],
		['::a9fe:a9fe', 'forbidden'],
		['fe80::1', 'forbidden'],
		['0.0.0.0', 'forbidden'],
		['224.0.0.1', 'forbidden'],
	])('%s is %s', (address, verdict) => {
		expect(classifyAddress(address)).toBe(verdict);
	});

	test('a refusal says "not a public address" and never what a name resolved to', async () => {
		for (const url of ['http://localhost:5678/webhook', 'http://localhost/x']) {
			const refused = checkWebhookUrl(url, { allowPrivate: false });
			await expect(refused).rejects.toThrow(/not a public address/);
			await expect(refused).rejects.not.toThrow(/127\.0\.0\.1|::1/);
		}
	});
});

describe('through the API, with WEBHOOK_ALLOWED_HOSTS', () => {
	let server: TestServer;
	let world: World;
	let receiver: Receiver;
	let key: string;

	beforeAll(async () => {
		receiver = await startReceiver();
		({ server, world } = await startApiServer({
			...NO_LIMIT,
			WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port},localhost:5678,[::1]:5679`,
			WEBHOOK_POLL_MS: '50',
		}));
		key = world.keys.all;
	});
	afterAll(async () => {
		await server.stop();
		await receiver.close();
	});
	afterEach(() => WebhookEndpoint.destroy({ where: {} }));

	const create = (url: string) => call(server, '/api/v1/webhook_endpoints', { method: 'POST', key, body: { url, events: ['*'] } });

	test.each([
		'http://[64:ff9b:1::a9fe:a9fe]/latest/meta-data/',
		'http://[fec0::1]/hook',
		'http://[3fff::1]/hook',
		'http://[2001:db8::1]/hook',
		'http://10.0.0.1:5678/hook',
		'http://127.0.0.1:5678/hook',
		'http://localhost:5679/hook',
		'http://169.254.169.254/',
	])('%s is 422 "not a public address"', async (url) => {
		const reply = await create(url);
		expectProblem(reply, 422, 'invalid_webhook_url');
		expect(reply.body.detail).toContain('not a public address');
		expect(await WebhookEndpoint.count()).toBe(0);
	});

	test('a name is refused without saying what it resolved to', async () => {
		const reply = await create('http://localhost:6000/hook');
		expectProblem(reply, 422, 'invalid_webhook_url');
		expect(reply.body.detail).toContain('localhost');
		expect(reply.text).not.toMatch(/127\.0\.0\.1|::1\b/);
	});

	test('exactly the listed destinations are allowed: by address, by name as written, IPv6 in brackets', async () => {
		for (const url of [`http://127.0.0.1:${receiver.port}/hook`, 'http://localhost:5678/webhook/x', 'http://[::1]:5679/x']) {
			expect({ url, status: (await create(url)).status }).toEqual({ url, status: 201 });
		}
	});

	test('the URL is stored and shown as parsed (new URL(raw).href)', async () => {
		const raw = `HTTP://127.0.0.1:${receiver.port}/a/../hook?x=1#frag`;
		const reply = await create(raw);
		expect(reply.status).toBe(201);
		const href = new URL(raw).href;
		expect(reply.body.url).toBe(href);
		expect((await call(server, `/api/v1/webhook_endpoints/${reply.body.id}`, { key })).body.url).toBe(href);
		expect((await WebhookEndpoint.findByPk(reply.body.id))!.url).toBe(href);
	});

	test('an allowed loopback destination gets its deliveries', async () => {
		expect((await create(`http://127.0.0.1:${receiver.port}/hook`)).status).toBe(201);
		const reply = await call(server, '/api/v1/enrollments', {
			method: 'POST',
			key,
			body: { student_id: world.users.erin.id, course_id: world.courses.safety.id },
		});
		expect(reply.status).toBe(201);
		await receiver.waitFor(1);
	});
});

describe('configuration', () => {
	test('WEBHOOK_ALLOWED_HOSTS must be host:port pairs; a bad one stops the start naming the variable', () => {
		expect(loadConfig({ WEBHOOK_ALLOWED_HOSTS: 'N8N.internal:443, 127.0.0.1:5678,[::1]:80' }).webhooks.allowedHosts).toEqual([
			'n8n.internal:443',
			'127.0.0.1:5678',
			'::1:80',
		]);
		for (const bad of ['127.0.0.1', 'host:0', 'host:70000', 'http://host:80', '::1:80']) {
			expect(() => loadConfig({ WEBHOOK_ALLOWED_HOSTS: bad })).toThrow(/^WEBHOOK_ALLOWED_HOSTS: .*host:port/);
		}
	});

	test('a warning at start when private destinations are allowed and HOST is not loopback', () => {
		const warnings = (env: Record<string, string>) => {
			const lines: string[] = [];
			const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
			warnOfOpenWebhooks(loadConfig(env), logger);
			return lines;
		};
		expect(warnings({ HOST: '0.0.0.0', WEBHOOK_ALLOWED_HOSTS: '10.0.0.5:5678' }).join('')).toContain('10.0.0.5:5678');
		expect(warnings({ HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE: 'true' })).toHaveLength(1);
		expect(warnings({ HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE: 'true' })).toHaveLength(0);
		expect(warnings({ HOST: '0.0.0.0' })).toHaveLength(0);
	});
});
