import { WebhookDelivery } from '../../server/src/db';
import { startNameServer, type NameServer } from '../helpers/name-server';
import { waitUntil } from '../helpers/wait';
import { webhookSuite } from '../helpers/webhook-suite';
import { call } from './api-fixtures';

/**
 * Issue 40: deliveries to one destination share a kept connection, and the URL policy still
 * decides at every send. The endpoint's URL names a host that a name server on 127.0.0.1
 * resolves with TTL 0; the test moves its answer. A kept socket stays tied to the address the
 * policy approved when it was opened: when the name moves to a refused address, or to another
 * address, nothing is sent through it and it is closed.
 */
const env: Record<string, string> = { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '100' };
let names: NameServer;
beforeAll(async () => {
	names = await startNameServer('127.0.0.1');
	env.WEBHOOK_DNS_SERVERS = names.address;
});
afterAll(() => names.close());
const suite = webhookSuite(env, { key: ['read:users', 'manage:webhooks'] });

const hooks = (path: string, body?: object) =>
	call(suite.server, `/api/v1/webhook_endpoints${path}`, { method: 'POST', key: suite.key, ...(body ? { body } : {}) });

async function subscribe(): Promise<string> {
	const reply = await hooks('', { url: `http://hooks.keepalive.test:${suite.receiver.port}/hook`, events: ['user.created'] });
	expect(reply.status).toBe(201);
	return reply.body.id;
}

/** Sends the endpoint a test event and waits for the worker to record its attempt. */
async function sendTest(endpointId: string): Promise<WebhookDelivery> {
	const reply = await hooks(`/${endpointId}/test`, {});
	expect(reply.status).toBe(201);
	return waitUntil(
		async () => {
			const delivery = await WebhookDelivery.findByPk(reply.body.id);
			return delivery !== null && delivery.attempts === 1 && delivery.leaseToken === null && delivery;
		},
		{ what: 'the test delivery attempted' },
	);
}

test('deliveries to one destination reuse one connection', async () => {
	const id = await subscribe();
	for (let i = 0; i < 3; i++) expect((await sendTest(id)).status).toBe('delivered');
	const ports = suite.receiver.received.map((r) => r.remotePort);
	expect(ports).toHaveLength(3);
	expect(new Set(ports).size).toBe(1);
});

test('the name moves to a refused address: nothing is sent through the kept connection, which is closed', async () => {
	const id = await subscribe();
	expect((await sendTest(id)).status).toBe('delivered');
	expect(suite.receiver.openConnections()).toBe(1);

	names.answerWith('169.254.169.254');
	const refused = await sendTest(id);
	expect(refused.status).toBe('pending');
	expect(refused.lastError).toMatch(/not a public address/);
	expect(suite.receiver.received).toHaveLength(1);
	// Closed now, not when it would have idled out (4 s).
	await waitUntil(() => suite.receiver.openConnections() === 0, { timeout: 2_000, what: 'the kept connection closed' });
	names.answerWith('127.0.0.1');
});

test('the name moves to another allowed address: the send goes there, not through the connection to the old one', async () => {
	const id = await subscribe();
	expect((await sendTest(id)).status).toBe('delivered');
	expect(suite.receiver.openConnections()).toBe(1);

	// Loopback too, so allowed, but nothing listens there: the send fails instead of reusing the kept socket to 127.0.0.1.
	names.answerWith('127.0.0.2');
	const moved = await sendTest(id);
	expect(moved.status).toBe('pending');
	expect(moved.lastError).toBe('ECONNREFUSED');
	expect(suite.receiver.received).toHaveLength(1);
	await waitUntil(() => suite.receiver.openConnections() === 0, { timeout: 2_000, what: 'the connection to the old address closed' });
	names.answerWith('127.0.0.1');
});
