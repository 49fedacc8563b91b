import { createKey } from '../../server/src/api-keys/lifecycle';
import { database, WebhookDelivery, WebhookEndpoint } from '../../server/src/db';
import { writeTransaction } from '../../server/src/db/write-transaction';
import { recordEvent } from '../../server/src/events/record';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { webhookSuite } from '../helpers/webhook-suite';
import { call } from './api-fixtures';

/**
 * Issue 27, finding 4: one organization's dead receivers must not delay another's webhooks.
 * Acme has hundreds of deliveries due to receivers that never answer (each attempt waits out
 * WEBHOOK_TIMEOUT_MS); Globex's events must still arrive within seconds, not after Acme's
 * queue, because the worker keeps sends in flight continuously, caps each organization and
 * endpoint, and claims round-robin across organizations.
 */
const TIMEOUT_MS = 2000;
const suite = webhookSuite({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_BASE_MS: '600000' }, { receiver: 'none' });
let hanging: Receiver;
let healthy: Receiver;

beforeAll(async () => {
	hanging = await startReceiver('/hang');
	hanging.answer(() => undefined); // never answers: every attempt waits out the timeout
	healthy = await startReceiver('/ok');
});
afterAll(() => Promise.all([hanging.close(), healthy.close()]));

async function subscribe(organizationId: string, url: string): Promise<string> {
	const key = (await createKey({ organizationId, label: 'hooks', scopes: ['read:users', 'manage:webhooks'], actor: { kind: 'cli' } })).secret;
	const reply = await call(suite.server, '/api/v1/webhook_endpoints', { method: 'POST', key, body: { url, events: ['user.created'] } });
	expect(reply.status).toBe(201);
	return reply.body.id;
}

async function userCreated(organizationId: string, id: string): Promise<void> {
	await writeTransaction(database(), (transaction) => recordEvent(transaction, { organizationId, type: 'user.created', object: { id } }));
}

test("another organization's events arrive within seconds while one has 300 deliveries to receivers that hang", async () => {
	const endpoints: string[] = [];
	for (let i = 0; i < 6; i++) endpoints.push(await subscribe(suite.world.acme.id, `${hanging.url}/${i}`));
	for (let n = 0; n < 50; n++) await userCreated(suite.world.acme.id, `usr_acme_${n}`);
	expect(await WebhookDelivery.count({ where: { organizationId: suite.world.acme.id } })).toBe(300);
	// Positive signal: the worker is busy with Acme's hanging receivers.
	await hanging.waitFor(6, 10_000);

	await subscribe(suite.world.globex.id, healthy.url);
	const delays: number[] = [];
	for (let n = 0; n < 5; n++) {
		const sent = Date.now();
		await userCreated(suite.world.globex.id, `usr_globex_${n}`);
		await healthy.waitFor(n + 1, 3_000);
		delays.push(Date.now() - sent);
	}
	expect(healthy.received.map((r) => JSON.parse(r.body).data.object.id)).toEqual([0, 1, 2, 3, 4].map((n) => `usr_globex_${n}`));
	expect(Math.max(...delays)).toBeLessThan(3_000);
	// Acme's deliveries are still being worked through, not dropped.
	expect(await WebhookDelivery.count({ where: { organizationId: suite.world.acme.id, status: 'pending' } })).toBeGreaterThan(0);
	await WebhookEndpoint.destroy({ where: {} });
}, 120_000);
