import { LmsInstantTrigger } from '../../nodes/LmsInstantTrigger/LmsInstantTrigger.node';
import { WebhookDelivery, WebhookEndpoint } from '../../server/src/db';
import { signatureHeader } from '../../server/src/webhooks/signature';
import { hostWebhookTrigger, type WebhookHost } from '../helpers/n8n-webhooks';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';
import { api, freePairs } from '../helpers/webhook-deployment';

/**
 * LMS Instant Trigger through n8n-core's hook and webhook contexts, against the real server:
 * activation subscribes it, the server's real signed deliveries start the workflow, anything
 * unsigned, forged or stale is answered 401 without starting it, a replay or a retry of an event
 * already received is acknowledged without starting it, and deactivation removes the endpoint.
 */
let server: TestServer;
let key: string;
let host: WebhookHost;

beforeAll(async () => {
	server = await startTestServer({
		env: { RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_BASE_MS: '200' },
	});
	key = (await server.createKey('acme', ['manage:webhooks', 'read:users', 'read:courses', 'read:enrollments', 'write:enrollments'])).key;
	host = await hostWebhookTrigger(new LmsInstantTrigger(), { events: ['enrollment.created'] }, { baseUrl: server.baseUrl, apiKey: key });
});
afterAll(async () => {
	await host?.close();
	await server?.stop();
});

const endpoints = async () => (await api(server.baseUrl, key, '/api/v1/webhook_endpoints')).body.data as Array<{ id: string; url: string; events: string[]; status: string }>;
const post = (headers: Record<string, string>, body: string) =>
	fetch(host.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

let pairs: Array<{ student_id: string; course_id: string }>;
async function enroll(): Promise<string> {
	pairs ??= await freePairs(server.baseUrl, key);
	const reply = await api(server.baseUrl, key, '/api/v1/enrollments', { method: 'POST', body: pairs.shift() });
	expect(reply.status).toBe(201);
	return reply.body.id;
}

test('activation subscribes the node once; the secret stays in its static data', async () => {
	await host.activate();
	await host.activate();
	const list = await endpoints();
	expect(list).toEqual([expect.objectContaining({ url: host.webhookUrl, events: ['enrollment.created'] })]);
	const data = host.staticData['node:LMS Instant Trigger'] as { webhookId: string; webhookSecret: string };
	expect(data.webhookId).toBe(list[0].id);
	expect(data.webhookSecret).toMatch(/^whsec_/);
});

test('a real delivery starts the workflow with the event object, its id and type', async () => {
	const enrollmentId = await enroll();
	await waitUntil(() => host.runs.length === 1, { what: 'one workflow run' });
	const [item] = host.runs[0];
	expect(item.json).toMatchObject({ id: enrollmentId, status: 'active', event_type: 'enrollment.created', event_id: expect.stringMatching(/^evt_/) });
	// The LMS's delivery log shows this answer: the node's own, not n8n's default 'firstEntryJson'.
	expect(host.answers.at(-1)).toEqual({ status: 200, body: '{"received":true}' });
});

describe('refused with 401, the workflow not started', () => {
	const refused = async (headers: Record<string, string>, body: string) => {
		const runs = host.runs.length;
		const reply = await post(headers, body);
		expect(reply.status).toBe(401);
		expect(host.runs).toHaveLength(runs);
		return (await reply.json()) as { message: string };
	};
	const real = () => host.received.find((r) => r.headers['lms-signature'])!;

	test('unsigned', async () => {
		expect((await refused({}, real().body)).message).toMatch(/not signed/);
	});

	test('forged: a body changed after signing, or signed with another secret', async () => {
		const { headers, body } = real();
		await refused({ 'lms-signature': headers['lms-signature'] }, body.replace('enrollment.created', 'enrollment.completed'));
		await refused({ 'lms-signature': signatureHeader('whsec_not-the-secret', body) }, body);
		await refused({ 'lms-signature': 't=1,v1=zz' }, body);
	});

	test('stale: signed by the server more than 5 minutes ago', async () => {
		const { body } = real();
		const secret = (host.staticData['node:LMS Instant Trigger'] as { webhookSecret: string }).webhookSecret;
		const message = await refused({ 'lms-signature': signatureHeader(secret, body, new Date(Date.now() - 301_000)) }, body);
		expect(message.message).toMatch(/5 minutes/);
	});
});

describe('every copy of an event after the first is acknowledged without starting the workflow (the LMS records the first receipt)', () => {
	const real = () => host.received.find((r) => r.headers['lms-signature'])!;
	const acknowledged = async (headers: Record<string, string>, body: string) => {
		const runs = host.runs.length;
		const reply = await post(headers, body);
		expect(reply.status).toBe(200);
		expect(await reply.json()).toEqual({ received: true, duplicate: true });
		expect(host.runs).toHaveLength(runs);
	};

	test('replayed: the server\'s own request sent again', async () => {
		const { headers, body } = real();
		await acknowledged({ 'lms-signature': headers['lms-signature'] }, body);
		await acknowledged({ 'lms-signature': headers['lms-signature'] }, body);
	});

	test('retried: the same event under a new signature, as the LMS retries a delivery whose 2xx was lost', async () => {
		const { body } = real();
		const secret = (host.staticData['node:LMS Instant Trigger'] as { webhookSecret: string }).webhookSecret;
		await acknowledged({ 'lms-signature': signatureHeader(secret, body, new Date(Date.now() + 1000)) }, body);
	});

	test('nothing about it is kept in the static data (n8n does not save it from webhook())', () => {
		expect(Object.keys(host.staticData['node:LMS Instant Trigger'] as object).sort()).toEqual(['webhookId', 'webhookSecret']);
	});

	test('a signed body that is not an LMS event is refused', async () => {
		const secret = (host.staticData['node:LMS Instant Trigger'] as { webhookSecret: string }).webhookSecret;
		const body = JSON.stringify({ id: 'nope', type: 'enrollment.created', data: { object: {} } });
		const reply = await post({ 'lms-signature': signatureHeader(secret, body) }, body);
		expect(reply.status).toBe(401);
	});
});

test('deactivation deletes the endpoint; nothing more arrives', async () => {
	expect(await host.deactivate()).toBe(true);
	expect(await endpoints()).toEqual([]);
	const before = host.received.length;
	// The server queues deliveries in the transaction that writes the event, for the endpoints
	// that exist then: once the enrollment is written, nothing is owed to anyone.
	await enroll();
	expect(await WebhookDelivery.count({ where: { status: 'pending' } })).toBe(0);
	expect(host.received).toHaveLength(before);
});

describe('checkExists after a restart: it only checks; a lost subscription is made again at activation', () => {
	const secretOf = () => (host.staticData['node:LMS Instant Trigger'] as { webhookId: string }).webhookId;

	test('an endpoint deleted while n8n was down: reported, and activation subscribes again', async () => {
		await host.activate();
		const lost = secretOf();
		expect((await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${lost}`, { method: 'DELETE' })).status).toBe(204);
		expect(await host.checkExists()).toBe(false);
		await host.activate();
		expect(await endpoints()).toEqual([expect.objectContaining({ url: host.webhookUrl, status: 'enabled' })]);
		expect(secretOf()).not.toBe(lost);
		const runs = host.runs.length;
		await enroll();
		await waitUntil(() => host.runs.length === runs + 1, { what: 'a run after the new subscription' });
	});

	test('an endpoint the LMS disabled: reported without deleting it; activation replaces it', async () => {
		const disabled = secretOf();
		await WebhookEndpoint.update({ status: 'disabled', disabledReason: 'three days of failed deliveries' }, { where: { id: disabled } });
		expect(await host.checkExists()).toBe(false);
		expect((await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${disabled}`)).body.status).toBe('disabled');
		await host.activate();
		expect(await endpoints()).toEqual([expect.objectContaining({ url: host.webhookUrl, status: 'enabled' })]);
		expect(secretOf()).not.toBe(disabled);
	});

	test('"Listen for test event" on an active workflow never removes the live subscription', async () => {
		const live = secretOf();
		// The test URL is not the subscribed one: checkExists answers false and deletes nothing.
		expect(await host.checkExists('manual')).toBe(false);
		expect((await endpoints()).map((e) => e.id)).toEqual([live]);
	});

	test('deactivation after all that leaves nothing behind', async () => {
		expect(await host.deactivate()).toBe(true);
		expect(await endpoints()).toEqual([]);
	});
});
