import { createKey } from '../../server/src/api-keys/lifecycle';
import { User, WebhookDelivery } from '../../server/src/db';
import { webhookSuite } from '../helpers/webhook-suite';
import { waitUntil } from '../helpers/wait';
import { call, expectProblem } from './api-fixtures';

/**
 * POST /api/v1/webhook_endpoints/{id}/receipts: the receiver's "I have this event", which lets
 * a receiver without storage of its own (n8n's Instant Trigger) act on each event once. Real
 * deliveries to a real receiver; retries every 300 ms here.
 */
const suite = webhookSuite({ WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '100' }, { key: ['read:enrollments', 'manage:webhooks'] });
// As n8n's Instant Trigger: the receipt comes before any 2xx, so here nothing answers 2xx first.
beforeEach(() => suite.receiver.answer((_request, res) => res.writeHead(503).end('not yet')));

let studentCount = 0;
/** A new enrollment through the API: one enrollment.created event; answers the endpoint's first delivery of it. */
async function deliveredEvent(endpointId: string): Promise<string> {
	const student = await User.create({
		organizationId: suite.world.acme.id,
		name: `Receipt ${++studentCount}`,
		email: `receipt${studentCount}@acme.example`,
		role: 'student',
		passwordHash: null,
	});
	const before = suite.receiver.received.length;
	const reply = await call(suite.server, '/api/v1/enrollments', { method: 'POST', key: suite.world.keys.all, body: { student_id: student.id, course_id: suite.world.courses.intro.id } });
	expect(reply.status).toBe(201);
	const [, ...rest] = (await suite.receiver.waitFor(before + 1)).slice(before);
	expect(rest).toEqual([]);
	const eventId = String(suite.receiver.received[before].headers['lms-event-id']);
	expect(await WebhookDelivery.count({ where: { endpointId, eventId } })).toBe(1);
	return eventId;
}

async function subscribe(): Promise<string> {
	const reply = await call(suite.server, '/api/v1/webhook_endpoints', { method: 'POST', key: suite.key, body: { url: suite.receiver.url, events: ['enrollment.created'] } });
	expect(reply.status).toBe(201);
	return reply.body.id;
}

const receipt = (endpointId: string, eventId: string, key = suite.key) =>
	call(suite.server, `/api/v1/webhook_endpoints/${endpointId}/receipts`, { method: 'POST', key, body: { event_id: eventId } });

test('the first receipt of an event answers 201 first: true, every later one 200 first: false', async () => {
	const endpointId = await subscribe();
	const eventId = await deliveredEvent(endpointId);
	const first = await receipt(endpointId, eventId);
	expect(first.status).toBe(201);
	expect(first.body).toEqual({ endpoint_id: endpointId, event_id: eventId, received_at: expect.any(String), first: true });
	const again = await receipt(endpointId, eventId);
	expect(again.status).toBe(200);
	expect(again.body).toMatchObject({ endpoint_id: endpointId, event_id: eventId, first: false });
});

test('an event the receiver already answered with a 2xx is not first: it was handed over', async () => {
	suite.receiver.answer((_request, res) => res.writeHead(200).end('ok'));
	const endpointId = await subscribe();
	const eventId = await deliveredEvent(endpointId);
	await waitUntil(async () => (await WebhookDelivery.findOne({ where: { endpointId, eventId } }))!.status === 'delivered', { what: 'the 2xx recorded' });
	const reply = await receipt(endpointId, eventId);
	expect(reply.status).toBe(200);
	expect(reply.body.first).toBe(false);
});

test('a receipt ends the retries of a delivery whose 2xx was lost', async () => {
	const endpointId = await subscribe();
	// The receiver has the event and says so, but its answer never reaches the LMS (a 500 here).
	let eventId = '';
	let receipted: Promise<unknown> = Promise.resolve();
	suite.receiver.answer((request, res) => {
		const id = String(request.headers['lms-event-id']);
		if (!eventId) {
			eventId = id;
			receipted = receipt(endpointId, id).then((reply) => {
				expect(reply.status).toBe(201);
				res.writeHead(500).end('lost');
			});
			return;
		}
		res.writeHead(200).end('ok');
	});
	await deliveredEvent(endpointId);
	await receipted;
	// The attempt is recorded as failed (its 500), with a retry due in 300 ms; the receipt keeps it delivered.
	const delivery = await waitUntil(
		async () => {
			const found = await WebhookDelivery.findOne({ where: { endpointId, eventId } });
			return found?.lastStatusCode === 500 && found;
		},
		{ what: 'the lost answer recorded as a 500' },
	);
	expect(delivery).toMatchObject({ status: 'delivered', lastStatusCode: 500 });
	// Later events arrive until well after the retry was due: the first was not sent again.
	const retryDue = delivery.nextAttemptAt.getTime();
	let later = '';
	while (Date.now() <= retryDue + 500 || !later) later = await deliveredEvent(endpointId);
	expect(suite.receiver.received.filter((r) => r.headers['lms-event-id'] === eventId)).toHaveLength(1);
	expect((await WebhookDelivery.findOne({ where: { endpointId, eventId } }))!.attempts).toBe(1);
});

test('of concurrent receipts of one event exactly one is first', async () => {
	const endpointId = await subscribe();
	const eventId = await deliveredEvent(endpointId);
	const replies = await Promise.all(Array.from({ length: 20 }, () => receipt(endpointId, eventId)));
	expect(replies.map((r) => r.status).sort()).toEqual([...Array(19).fill(200), 201]);
	expect(replies.filter((r) => r.body.first)).toHaveLength(1);
});

test('only an event delivered to this endpoint, of this organization, can be received', async () => {
	const endpointId = await subscribe();
	const eventId = await deliveredEvent(endpointId);
	const otherId = await subscribe();
	// The other endpoint was created after the event: the LMS owes it nothing.
	expectProblem(await receipt(otherId, eventId), 404, 'not_found');
	expectProblem(await receipt('whe_doesNotExist', eventId), 404, 'not_found');
	expectProblem(await receipt('not-an-id', eventId), 404, 'not_found');
	expectProblem(await receipt(endpointId, 'evt_0000000000000000000000000000'), 404, 'not_found');
	const globexKey = (await createKey({ organizationId: suite.world.globex.id, label: 'g', scopes: ['manage:webhooks'], actor: { kind: 'cli' } })).secret;
	expectProblem(await receipt(endpointId, eventId, globexKey), 404, 'not_found');
	expectProblem(await receipt(endpointId, eventId, suite.world.keys.all.replace(/./g, 'x')), 401, 'invalid_api_key');
	expectProblem(await receipt(endpointId, 'evt_x'), 400, 'invalid_request');
	const extra = await call(suite.server, `/api/v1/webhook_endpoints/${endpointId}/receipts`, { method: 'POST', key: suite.key, body: { event_id: eventId, at: 1 } });
	expectProblem(extra, 400, 'invalid_request');
	// None of that received it.
	expect((await receipt(endpointId, eventId)).body.first).toBe(true);
	// A deleted endpoint receives nothing.
	await call(suite.server, `/api/v1/webhook_endpoints/${endpointId}`, { method: 'DELETE', key: suite.key });
	expectProblem(await receipt(endpointId, eventId), 404, 'not_found');
});
