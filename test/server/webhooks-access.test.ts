import { createHmac } from 'node:crypto';

import { createKey } from '../../server/src/api-keys/lifecycle';
import { WebhookDelivery, WebhookEndpoint } from '../../server/src/db';
import { waitUntil } from '../helpers/wait';
import { webhookSuite } from '../helpers/webhook-suite';
import { call, expectProblem } from './api-fixtures';

/**
 * SPEC §22, issue 39 L1 and M1: a `manage:webhooks` key sees and acts only on the endpoints it
 * owns (an endpoint made on Settings → Webhooks is owned by no key), and a delivery's request body
 * (the event) is shown only to a key that may read that event's type. Every operation of the API
 * on another key's endpoint answers the same 404 as an unknown id, and changes nothing.
 */
const suite = webhookSuite({ WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '100' });
afterEach(() => WebhookDelivery.destroy({ where: {} }));

const hooks = (key: string, path: string, options: Parameters<typeof call>[2] = {}) => call(suite.server, `/api/v1/webhook_endpoints${path}`, { key, ...options });

async function keyWith(scopes: string[]): Promise<{ id: string; secret: string }> {
	const { apiKey, secret } = await createKey({ organizationId: suite.world.acme.id, label: `access ${scopes.join(' ')}`, scopes, actor: { kind: 'cli' } });
	return { id: apiKey.id, secret };
}

test("L1: another key's endpoint, and one made on Settings, are not listed and every operation on them answers 404, changing nothing", async () => {
	const owner = await keyWith(['manage:webhooks', 'read:users']);
	const other = await keyWith(['manage:webhooks', 'read:users']);
	const made = await hooks(owner.secret, '', { method: 'POST', body: { url: suite.receiver.url, events: ['user.created'] } });
	expect(made.status).toBe(201);
	const id: string = made.body.id;
	const test = await hooks(owner.secret, `/${id}/test`, { method: 'POST', body: {} });
	expect(test.status).toBe(201);
	const [sent] = await suite.receiver.waitFor(1);
	await waitUntil(async () => (await WebhookDelivery.findByPk(String(test.body.id)))?.status === 'delivered', { what: 'the test event delivered' });
	// As Settings → Webhooks makes one: no owner key (its secret is never opened here: nothing is sent to it).
	const fromSettings = await WebhookEndpoint.create({ organizationId: suite.world.acme.id, url: suite.receiver.url, events: '*', secret: 'sealed', apiKeyId: null });
	const before = await WebhookEndpoint.findAll({ order: [['id', 'ASC']], raw: true });

	// The owner sees its own; the other key sees neither; Settings' endpoint is no key's.
	expect((await hooks(owner.secret, '')).body.data.map((e: { id: string }) => e.id)).toEqual([id]);
	expect((await hooks(other.secret, '')).body.data).toEqual([]);
	for (const [key, target] of [
		[other.secret, id],
		[owner.secret, fromSettings.id],
	]) {
		expectProblem(await hooks(key, `/${target}`), 404, 'not_found');
		expectProblem(await hooks(key, `/${target}/deliveries`), 404, 'not_found');
		expectProblem(await hooks(key, `/${target}/deliveries/${String(test.body.id)}/retry`, { method: 'POST', body: {} }), 404, 'not_found');
		expectProblem(await hooks(key, `/${target}/test`, { method: 'POST', body: {} }), 404, 'not_found');
		expectProblem(await hooks(key, `/${target}/rotate_secret`, { method: 'POST', body: {} }), 404, 'not_found');
		expectProblem(await hooks(key, `/${target}/receipts`, { method: 'POST', body: { event_id: String(sent.headers['lms-event-id']) } }), 404, 'not_found');
		expectProblem(await hooks(key, `/${target}`, { method: 'DELETE' }), 404, 'not_found');
	}
	expect(await WebhookEndpoint.findAll({ order: [['id', 'ASC']], raw: true })).toEqual(before);
	expect(await WebhookDelivery.count()).toBe(1);
	expect(suite.receiver.received).toHaveLength(1);
	// The owner still acts on its own.
	expect((await hooks(owner.secret, `/${id}/deliveries`)).body.data).toHaveLength(1);
});

test("M1: a delivery's request body is shown only to a key that may read the event's type", async () => {
	const hooksOnly = await keyWith(['manage:webhooks', 'read:enrollments']);
	const made = await hooks(hooksOnly.secret, '', { method: 'POST', body: { url: suite.receiver.url, events: ['enrollment.created'] } });
	expect(made.status).toBe(201);
	// A delivery of a user.created event on its endpoint (as one made before its key could no longer read users would be).
	const body = JSON.stringify({ id: 'evt_1', type: 'user.created', data: { object: { email: 'secret@acme.example' } } });
	await WebhookDelivery.create({
		organizationId: suite.world.acme.id,
		endpointId: made.body.id,
		eventId: 'evt_00000000000000000000000001',
		eventType: 'user.created',
		status: 'failed',
		nextAttemptAt: new Date(),
		lastRequest: JSON.stringify({ headers: { 'LMS-Event-Type': 'user.created' }, body }),
	});
	const [delivery] = (await hooks(hooksOnly.secret, `/${String(made.body.id)}/deliveries`)).body.data;
	expect(delivery.last_request).toEqual({ headers: { 'LMS-Event-Type': 'user.created' }, body: null });
	expect(JSON.stringify(delivery)).not.toContain('secret@acme.example');
});

test('PATCH keeps the id and the secret; a refused URL or type changes nothing; deliveries filter by type and time, attempts listed', async () => {
	const key = await keyWith(['manage:webhooks', 'read:users']);
	const made = await hooks(key.secret, '', { method: 'POST', body: { url: 'http://127.0.0.1:9/old', events: ['user.created'] } });
	const id: string = made.body.id;
	const secret: string = made.body.secret;
	const stored = (await WebhookEndpoint.findByPk(id))!.secret;
	expectProblem(await hooks(key.secret, `/${id}`, { method: 'PATCH', body: { url: 'http://169.254.169.254/' } }), 422, 'invalid_webhook_url');
	expectProblem(await hooks(key.secret, `/${id}`, { method: 'PATCH', body: { events: ['enrollment.created'] } }), 403, 'insufficient_scope');
	expectProblem(await hooks(key.secret, `/${id}`, { method: 'PATCH', body: {} }), 400, 'invalid_request');
	expect((await hooks(key.secret, `/${id}`)).body).toMatchObject({ url: 'http://127.0.0.1:9/old', events: ['user.created'], description: null });
	const edited = await hooks(key.secret, `/${id}`, { method: 'PATCH', body: { url: suite.receiver.url, description: 'HR sync' } });
	expect(edited.status).toBe(200);
	expect(edited.body).toMatchObject({ id, url: suite.receiver.url, events: ['user.created'], description: 'HR sync' });
	expect(edited.body.secret).toBeUndefined();
	expect((await WebhookEndpoint.findByPk(id))!.secret).toBe(stored);

	// Sent to the new URL, signed with the secret given at creation.
	const test = await hooks(key.secret, `/${id}/test`, { method: 'POST' });
	expect(test.status).toBe(201);
	const [request] = await suite.receiver.waitFor(1);
	const [t, v1] = String(request.headers['lms-signature']).split(',').map((p) => p.split('=')[1]);
	expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${request.body}`).digest('hex'));
	await waitUntil(async () => (await WebhookDelivery.findByPk(String(test.body.id)))?.status === 'delivered', { what: 'the test event delivered' });

	const list = async (query: string) => (await hooks(key.secret, `/${id}/deliveries${query}`)).body.data.map((d: { id: string }) => d.id);
	expect(await list('?event_type=webhook.test')).toEqual([test.body.id]);
	expect(await list('?event_type=user.created')).toEqual([]);
	expect(await list(`?created_after=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`)).toEqual([test.body.id]);
	expect(await list(`?created_before=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`)).toEqual([]);
	expectProblem(await hooks(key.secret, `/${id}/deliveries?created_after=yesterday`), 400, 'invalid_request');

	const attempts = await hooks(key.secret, `/${id}/deliveries/${String(test.body.id)}/attempts`);
	expect(attempts.body).toEqual({
		data: [
			{
				attempt: 1,
				started_at: expect.any(String),
				duration_ms: expect.any(Number),
				status_code: 200,
				error: null,
				request: { headers: expect.objectContaining({ 'LMS-Event-Type': 'webhook.test' }) },
				// A loopback receiver: status and size only.
				response: { status: 200, size: expect.any(Number), body: null },
			},
		],
	});
});
