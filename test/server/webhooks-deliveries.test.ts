import { createHmac } from 'node:crypto';

import { AuditEvent, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../../server/src/db';
import { send } from '../../server/src/webhooks/send';
import { MAX_ATTEMPTS } from '../../server/src/webhooks/schedule';
import { verifySignature } from '../../nodes/LmsInstantTrigger/signature';
import { startReceiver } from '../helpers/receiver';
import { waitUntil } from '../helpers/wait';
import { webhookSuite } from '../helpers/webhook-suite';
import { call, expectProblem } from './api-fixtures';

/**
 * SPEC §19: deliveries that can be seen and repaired (list, retry, test event) and secret
 * rotation with both signatures for 24 h, over HTTP against the real server and a real receiver.
 * Retries every 200 ms here. The races run on whichever database the suite runs on; on
 * PostgreSQL (TEST_DATABASE=postgres) they are real concurrent transactions.
 */
const suite = webhookSuite({ WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '100' });
afterEach(() => WebhookDelivery.destroy({ where: {} }));

const hooks = (path: string, options: Parameters<typeof call>[2] = {}) => call(suite.server, `/api/v1/webhook_endpoints${path}`, { key: suite.world.keys.all, ...options });
const post = (path: string, key = suite.world.keys.all) => hooks(path, { method: 'POST', body: {}, key });

async function subscribe(events = ['user.created']): Promise<{ id: string; secret: string }> {
	const reply = await hooks('', { method: 'POST', body: { url: suite.receiver.url, events } });
	expect(reply.status).toBe(201);
	return { id: reply.body.id, secret: reply.body.secret };
}

let people = 0;
/** A new user through the API: one user.created event. */
async function newUser(): Promise<string> {
	people += 1;
	const reply = await call(suite.server, '/api/v1/users', { method: 'POST', key: suite.world.keys.all, body: { name: `Hook ${people}`, email: `hook${people}@acme.example` } });
	expect(reply.status).toBe(201);
	return reply.body.id;
}

const deliveriesOf = async (endpointId: string, query = '') => (await hooks(`/${endpointId}/deliveries${query}`)).body.data as Array<Record<string, unknown>>;

function signaturesOf(header: string, body: string, secret: string): boolean {
	const [t, ...v1] = header.split(',').map((part) => part.split('=')[1]);
	const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
	return v1.includes(expected);
}

describe('GET …/deliveries', () => {
	test('status, attempts, last HTTP status and next attempt, newest first, filtered by status, paged', async () => {
		const { id } = await subscribe();
		suite.receiver.answer((_r, res) => res.writeHead(200).end('ok'));
		await newUser();
		await suite.receiver.waitFor(1);
		suite.receiver.answer((_r, res) => res.writeHead(500).end('down'));
		await newUser();
		await suite.receiver.waitFor(2);
		const [failing, delivered] = await waitUntil(async () => {
			const rows = await deliveriesOf(id);
			return rows.length === 2 && rows[0].last_status_code === 500 && rows[1].status === 'delivered' && rows;
		});
		expect(delivered).toEqual({
			id: expect.stringMatching(/^whd_/),
			endpoint_id: id,
			event_id: expect.stringMatching(/^evt_/),
			event_type: 'user.created',
			status: 'delivered',
			attempts: 1,
			last_status_code: 200,
			last_error: null,
			last_attempt_at: expect.any(String),
			next_attempt_at: null,
			delivered_at: expect.any(String),
			created_at: expect.any(String),
			last_request: { headers: expect.objectContaining({ 'LMS-Event-Type': 'user.created' }), body: expect.stringContaining('"type":"user.created"') },
			// A loopback receiver: its answer's status only, never its body (SPEC §22).
			last_response: { status: 200, body: null },
		});
		expect(failing).toMatchObject({ status: 'pending', last_status_code: 500, last_error: 'HTTP 500', next_attempt_at: expect.any(String) });
		expect((await deliveriesOf(id, '?status=delivered')).map((d) => d.id)).toEqual([delivered.id]);
		const page = await hooks(`/${id}/deliveries?per_page=1&page=2`);
		expect(page.body).toMatchObject({ data: [{ id: delivered.id }], pagination: { page: 2, per_page: 1, total: 2 } });
		expect(page.headers.get('link')).toContain('rel="first"');
	});

	test("each delivery keeps its last attempt's request; of a loopback receiver's answer only status and size, every attempt kept", async () => {
		const { id } = await subscribe();
		const huge = 'x'.repeat(20_000);
		suite.receiver.answer((_r, res) => res.writeHead(502, { 'Content-Type': 'text/html' }).end(huge));
		await newUser();
		const [sent] = await suite.receiver.waitFor(2);
		const [delivery] = await waitUntil(async () => {
			const rows = await deliveriesOf(id);
			return rows.length === 1 && Number(rows[0].attempts) === 2 && rows[0].last_response !== null && rows;
		});
		const request = delivery.last_request as { headers: Record<string, string>; body: string };
		// The request as the receiver got it: same body, same signature.
		expect(request.body).toBe(sent.body);
		expect(request.headers['LMS-Event-Id']).toBe(sent.headers['lms-event-id']);
		// M2: the answer of a destination that is not public is not kept, so the URL policy's exceptions cannot be read through it.
		expect(delivery.last_response).toEqual({ status: 502, body: null });
		const stored = await WebhookDelivery.findByPk(String(delivery.id));
		expect(stored!.lastResponseBody).toBeNull();
		// Every attempt is a row, written with its outcome.
		const attempts = await waitUntil(async () => {
			const rows = await WebhookDeliveryAttempt.findAll({ where: { deliveryId: String(delivery.id) }, order: [['id', 'ASC']] });
			return rows.length === 2 && rows;
		});
		expect(attempts.map((a) => [a.attempt, a.statusCode, a.responseSize, a.responseBody, a.error])).toEqual([
			[1, 502, 20_000, null, 'HTTP 502'],
			[2, 502, 20_000, null, 'HTTP 502'],
		]);
		expect(attempts[0].durationMs).toBeGreaterThanOrEqual(0);
		expect(JSON.parse(attempts[0].requestHeaders!)).toMatchObject({ 'LMS-Event-Id': sent.headers['lms-event-id'] });
	});

	test('a public destination\'s answer is kept cut at 4 KB with a marker, with its whole size', async () => {
		suite.receiver.answer((_r, res) => res.writeHead(502).end('x'.repeat(20_000)));
		const url = new URL(suite.receiver.url);
		const result = await send({ url, address: '127.0.0.1', family: 4, public: true }, {}, '{}', 1000);
		expect(result).toEqual({ status: 502, responseBody: `${'x'.repeat(4096)}… [truncated: 20000 bytes in all]`, responseSize: 20_000 });
	});

	test('another organization, an unknown endpoint, a bad filter and a key without manage:webhooks are refused', async () => {
		const { id } = await subscribe();
		expectProblem(await hooks(`/${id}/deliveries`, { key: suite.world.keys.globex }), 404, 'not_found');
		expectProblem(await hooks('/whe_unknown/deliveries'), 404, 'not_found');
		expectProblem(await hooks(`/${id}/deliveries?status=lost`), 400, 'invalid_request');
		expectProblem(await hooks(`/${id}/deliveries`, { key: suite.world.keys.readUsers }), 403, 'insufficient_scope');
	});
});

describe('POST …/deliveries/{delivery_id}/retry', () => {
	test('any delivery is sent again now: a failing one keeps its count and schedule, a failed one starts a fresh schedule; no body needed', async () => {
		const { id } = await subscribe();
		suite.receiver.answer((_r, res) => res.writeHead(500).end('down'));
		await newUser();
		await suite.receiver.waitFor(1);
		const [pending] = await deliveriesOf(id);
		// Failing, its next attempt far away: a resend sends it now (no body, no Content-Type: read as {}).
		await waitUntil(async () => (await WebhookDelivery.count({ where: { id: String(pending.id), leaseToken: null, attempts: 1 } })) === 1, { what: 'the first attempt recorded' });
		await WebhookDelivery.update({ nextAttemptAt: new Date(Date.now() + 3_600_000) }, { where: { id: String(pending.id) } });
		const now = await hooks(`/${id}/deliveries/${String(pending.id)}/retry`, { method: 'POST' });
		expect(now.status).toBe(200);
		expect(now.body).toMatchObject({ id: pending.id, status: 'pending', attempts: 1 });
		await suite.receiver.waitFor(2);
		// It failed again: its schedule continues from its count (2 attempts), a retry owed.
		const continued = await waitUntil(async () => {
			const [row] = await deliveriesOf(id);
			return row.attempts === 2 && row.last_attempt_at !== pending.last_attempt_at && row.status === 'pending' && row;
		});
		expect(Date.parse(String(continued.next_attempt_at))).toBeGreaterThan(Date.now() - 60_000);
		// Exhausted: its last attempt failed; a resend starts a fresh schedule.
		await WebhookDelivery.update({ status: 'failed', attempts: MAX_ATTEMPTS }, { where: { id: String(pending.id) } });
		suite.receiver.answer((_r, res) => res.writeHead(200).end('ok'));
		const before = suite.receiver.received.length;
		const retried = await post(`/${id}/deliveries/${String(pending.id)}/retry`);
		expect(retried.status).toBe(200);
		expect(retried.body).toMatchObject({ id: pending.id, status: 'pending', attempts: 0, next_attempt_at: expect.any(String), delivered_at: null });
		await suite.receiver.waitFor(before + 1);
		await waitUntil(async () => (await deliveriesOf(id))[0].status === 'delivered', { what: 'the retried delivery delivered' });
		expect(suite.receiver.received[before].headers['lms-event-id']).toBe(pending.event_id);
	});

	test('unknown, another endpoint\'s and another organization\'s deliveries answer 404; a disabled endpoint 409', async () => {
		const { id } = await subscribe();
		const other = await subscribe();
		suite.receiver.answer((_r, res) => res.writeHead(200).end('ok'));
		await newUser();
		await suite.receiver.waitFor(2);
		const [delivery] = await waitUntil(async () => {
			const rows = await deliveriesOf(id);
			return rows[0]?.status === 'delivered' && rows;
		});
		expectProblem(await post(`/${other.id}/deliveries/${String(delivery.id)}/retry`), 404, 'not_found');
		expectProblem(await post(`/${id}/deliveries/whd_unknown/retry`), 404, 'not_found');
		expectProblem(await post(`/${id}/deliveries/nope/retry`), 404, 'not_found');
		expectProblem(await post(`/${id}/deliveries/${String(delivery.id)}/retry`, suite.world.keys.globex), 404, 'not_found');
		expectProblem(await post(`/${id}/deliveries/${String(delivery.id)}/retry`, suite.world.keys.readUsers), 403, 'insufficient_scope');
		expectProblem(await hooks(`/${id}/deliveries/${String(delivery.id)}/retry`, { method: 'POST', body: { now: true } }), 400, 'invalid_request');
		await WebhookEndpoint.update({ status: 'disabled' }, { where: { id } });
		expectProblem(await post(`/${id}/deliveries/${String(delivery.id)}/retry`), 409, 'endpoint_disabled');
	});

	test('race: two resends of one delivery at once send it once', async () => {
		const { id } = await subscribe();
		suite.receiver.answer((_r, res) => res.writeHead(200).end('ok'));
		await newUser();
		await suite.receiver.waitFor(1);
		const [delivery] = await waitUntil(async () => {
			const rows = await deliveriesOf(id);
			return rows[0]?.status === 'delivered' && rows;
		});
		for (let round = 0; round < 3; round++) {
			// The receiver holds its answer until both resends have answered: any second send would be seen.
			let release!: () => void;
			const released = new Promise<void>((resolve) => (release = resolve));
			suite.receiver.answer((_r, res) => void released.then(() => res.writeHead(200).end('ok')));
			const before = suite.receiver.received.length;
			const replies = await Promise.all([0, 1].map(() => post(`/${id}/deliveries/${String(delivery.id)}/retry`)));
			expect(replies.map((r) => r.status)).toEqual([200, 200]);
			await suite.receiver.waitFor(before + 1);
			release();
			await waitUntil(async () => (await WebhookDelivery.count({ where: { id: String(delivery.id), status: 'delivered', leaseToken: null } })) === 1, {
				what: 'the resend delivered',
			});
			expect(suite.receiver.received).toHaveLength(before + 1);
		}
	});
});

describe('POST …/test', () => {
	test('a webhook.test event, signed, to that endpoint only, not in the feed; answered with its delivery', async () => {
		const { id, secret } = await subscribe();
		const bystander = await startReceiver();
		try {
			const other = await hooks('', { method: 'POST', body: { url: bystander.url, events: ['*'] } });
			expect(other.status).toBe(201);
			const reply = await post(`/${id}/test`);
			expect(reply.status).toBe(201);
			expect(reply.body).toMatchObject({ endpoint_id: id, event_type: 'webhook.test', status: 'pending', event_id: expect.stringMatching(/^evt_[0-9a-f]{28}$/) });
			const [request] = await suite.receiver.waitFor(1);
			expect(request.headers['lms-event-type']).toBe('webhook.test');
			expect(request.headers['lms-event-id']).toBe(reply.body.event_id);
			expect(JSON.parse(request.body)).toMatchObject({ id: reply.body.event_id, type: 'webhook.test', data: { object: { endpoint_id: id } } });
			expect(signaturesOf(String(request.headers['lms-signature']), request.body, secret)).toBe(true);
			await waitUntil(async () => (await deliveriesOf(id))[0].status === 'delivered', { what: 'the test delivery delivered' });
			// The bystander and the feed: a later real event reaches the bystander first, and nothing of the test.
			await newUser();
			const [first] = await bystander.waitFor(1);
			expect(first.headers['lms-event-type']).toBe('user.created');
			const feed = await call(suite.server, '/api/v1/events?limit=100', { key: suite.world.keys.all });
			expect(feed.body.data.map((e: { type: string }) => e.type)).not.toContain('webhook.test');
			expect((await call(suite.server, `/api/v1/events/${String(reply.body.event_id)}`, { key: suite.world.keys.all })).status).toBe(404);
		} finally {
			await bystander.close();
		}
	});

	test('an unknown endpoint answers 404, a disabled one 409, a key without the scope 403', async () => {
		const { id } = await subscribe();
		expectProblem(await post('/whe_unknown/test'), 404, 'not_found');
		expectProblem(await post(`/${id}/test`, suite.world.keys.readUsers), 403, 'insufficient_scope');
		await WebhookEndpoint.update({ status: 'disabled' }, { where: { id } });
		expectProblem(await post(`/${id}/test`), 409, 'endpoint_disabled');
	});
});

describe('POST …/rotate_secret', () => {
	test('the new secret once; deliveries carry two v1= for 24 h, the old and the new; audited', async () => {
		const { id, secret: old } = await subscribe();
		const reply = await hooks(`/${id}/rotate_secret`, { method: 'POST', body: {}, headers: { 'idempotency-key': `rotate-${id}` } });
		expect(reply.status).toBe(200);
		expect(reply.body).toMatchObject({ id, secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/), previous_secret_expires_at: expect.any(String) });
		const fresh: string = reply.body.secret;
		expect(fresh).not.toBe(old);
		const until = Date.parse(reply.body.previous_secret_expires_at);
		expect(until - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
		// Shown once: a replay of the same request, the endpoint, the list, and the stored bytes never show it.
		const replay = await hooks(`/${id}/rotate_secret`, { method: 'POST', body: {}, headers: { 'idempotency-key': `rotate-${id}` } });
		expect(replay.body.secret).toBeUndefined();
		expect((await hooks(`/${id}`)).text).not.toContain('whsec_');
		const stored = await suite.server.storedBytes();
		expect(stored.includes(fresh)).toBe(false);
		expect(stored.includes(old)).toBe(false);

		await newUser();
		const [request] = await suite.receiver.waitFor(1);
		const header = String(request.headers['lms-signature']);
		expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
		expect(signaturesOf(header, request.body, fresh)).toBe(true);
		expect(signaturesOf(header, request.body, old)).toBe(true);
		// The LMS Instant Trigger accepts such a header with either secret.
		const now = Math.floor(Date.now() / 1000);
		expect(verifySignature(header, Buffer.from(request.body), fresh, now).ok).toBe(true);
		expect(verifySignature(header, Buffer.from(request.body), old, now).ok).toBe(true);
		expect(verifySignature(header, Buffer.from(request.body), 'whsec_other', now).ok).toBe(false);

		// After the 24 h the old one signs no more.
		await WebhookEndpoint.update({ previousSecretUntil: new Date(Date.now() - 1000) }, { where: { id } });
		await newUser();
		const [, later] = await suite.receiver.waitFor(2);
		expect(String(later.headers['lms-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
		expect(signaturesOf(String(later.headers['lms-signature']), later.body, fresh)).toBe(true);

		expect(await AuditEvent.count({ where: { action: 'webhook.rotated', webhookEndpointId: id } })).toBe(1);
		expectProblem(await post('/whe_unknown/rotate_secret'), 404, 'not_found');
		expectProblem(await post(`/${id}/rotate_secret`, suite.world.keys.readUsers), 403, 'insufficient_scope');
	});

	test('race: deliveries sent while the secret rotates verify against the old or the new secret, never neither', async () => {
		const { id, secret: first } = await subscribe();
		const secrets = [first];
		const rotations = (async () => {
			for (let i = 0; i < 5; i++) {
				const reply = await post(`/${id}/rotate_secret`);
				expect(reply.status).toBe(200);
				secrets.push(reply.body.secret);
			}
		})();
		const users = (async () => {
			for (let i = 0; i < 10; i++) await newUser();
		})();
		await Promise.all([rotations, users]);
		const received = await suite.receiver.waitFor(10);
		for (const request of received) {
			const header = String(request.headers['lms-signature']);
			expect([header, secrets.some((secret) => signaturesOf(header, request.body, secret))]).toEqual([header, true]);
		}
	});
});

test('a receipt that arrives during the last attempt is kept: the delivery stays delivered, not failed', async () => {
	const { id } = await subscribe();
	// The first attempt is held open while its row is made the second-to-last: the next attempt is the last.
	const held: Array<{ end(): void }> = [];
	suite.receiver.answer((_r, res) => held.push({ end: () => res.writeHead(500).end('down') }));
	await newUser();
	const [firstTry] = await suite.receiver.waitFor(1);
	const eventId = String(firstTry.headers['lms-event-id']);
	await WebhookDelivery.update({ attempts: MAX_ATTEMPTS - 1 }, { where: { endpointId: id } });
	// During the last attempt the receiver receipts the event, then its answer fails (a 500 here).
	let receipted: Promise<unknown> | undefined;
	suite.receiver.answer((_r, res) => {
		receipted = hooks(`/${id}/receipts`, { method: 'POST', body: { event_id: eventId } }).then((reply) => {
			expect(reply.status).toBe(201);
			res.writeHead(500).end('lost');
		});
	});
	held[0].end();
	await suite.receiver.waitFor(2);
	await waitUntil(() => receipted !== undefined, { what: 'the receipt sent' });
	await receipted;
	// The last attempt's outcome is recorded when its lease is released.
	await waitUntil(async () => (await WebhookDelivery.count({ where: { endpointId: id, leaseToken: null, attempts: MAX_ATTEMPTS } })) === 1, {
		what: 'the last attempt recorded',
	});
	const [delivery] = await deliveriesOf(id);
	expect(delivery).toMatchObject({ status: 'delivered', attempts: MAX_ATTEMPTS, last_status_code: 500, delivered_at: expect.any(String), next_attempt_at: null });
});
