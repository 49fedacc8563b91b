import { createHmac } from 'node:crypto';

import { User, WebhookDelivery, WebhookEndpoint } from '../../server/src/db';
import { pruneDeliveries } from '../../server/src/webhooks/retention';
import { nextAttemptAfter } from '../../server/src/webhooks/schedule';
import { startReceiver } from '../helpers/receiver';
import { waitUntil } from '../helpers/wait';
import { webhookSuite } from '../helpers/webhook-suite';
import { call } from './api-fixtures';

/**
 * Deliveries from the real server to a real receiver on 127.0.0.1. The retry base is 300 ms
 * and the timeout 1 s here (WEBHOOK_RETRY_BASE_MS, WEBHOOK_TIMEOUT_MS); production keeps
 * 1 min and 10 s.
 */
const RETRY_BASE_MS = 300;
const suite = webhookSuite(
	{ WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS), WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '100' },
	{ key: ['read:users', 'read:enrollments', 'manage:webhooks'] },
);

async function subscribe(events: string[], url = suite.receiver.url): Promise<{ id: string; secret: string }> {
	const reply = await call(suite.server, '/api/v1/webhook_endpoints', { method: 'POST', key: suite.key, body: { url, events } });
	expect(reply.status).toBe(201);
	return reply.body;
}

let studentCount = 0;
/** A change through the API: a new student enrolled in a course, which emits enrollment.created. */
async function enroll(): Promise<string> {
	const student = await User.create({
		organizationId: suite.world.acme.id,
		name: `Hook ${++studentCount}`,
		email: `hook${studentCount}@acme.example`,
		role: 'student',
		passwordHash: null,
	});
	const reply = await call(suite.server, '/api/v1/enrollments', {
		method: 'POST',
		key: suite.world.keys.all,
		body: { student_id: student.id, course_id: suite.world.courses.intro.id },
	});
	if (reply.status !== 201) throw new Error(`enroll: ${reply.status} ${suite.server.logs().slice(-3000)}`);
	return reply.body.id;
}

/** The endpoint's deliveries once `done` holds for them (the worker has finished with them). */
async function deliveriesOnce(endpointId: string, done: (rows: WebhookDelivery[]) => boolean, what: string): Promise<WebhookDelivery[]> {
	return waitUntil(async () => {
		const rows = await WebhookDelivery.findAll({ where: { endpointId }, order: [['createdAt', 'ASC']] });
		return done(rows) && rows;
	}, { what });
}

test('a change is posted, signed, with the event as the feed shows it', async () => {
	const { secret } = await subscribe(['enrollment.created']);
	const enrollmentId = await enroll();
	const [request] = await suite.receiver.waitFor(1);

	expect(request.method).toBe('POST');
	expect(request.headers['content-type']).toBe('application/json');
	const event = JSON.parse(request.body);
	expect(event).toMatchObject({ type: 'enrollment.created', data: { object: { id: enrollmentId, status: 'active' } } });
	expect(request.headers['lms-event-id']).toBe(event.id);
	expect(request.headers['lms-event-type']).toBe('enrollment.created');
	// PostgreSQL serves an event once every older transaction on the server has ended (events/feed.ts).
	const fromFeed = await waitUntil(async () => {
		const reply = await call(suite.server, `/api/v1/events/${event.id}`, { key: suite.world.keys.all });
		return reply.status === 200 && reply;
	}, { what: 'the event in the feed' });
	expect(fromFeed.body).toEqual(event);

	const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['lms-signature']));
	expect(match).not.toBeNull();
	const [, t, v1] = match!;
	expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(5);
	expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${request.body}`).digest('hex'));
});

test('user events (SPEC §16) are delivered like the others: user.updated with data.previous_attributes, then user.deactivated', async () => {
	await subscribe(['user.updated', 'user.deactivated']);
	const created = await call(suite.server, '/api/v1/users', { method: 'POST', key: suite.world.keys.all, body: { name: 'Leaver Hook', email: 'leaver.hook@acme.example' } });
	expect(created.status).toBe(201);
	const patch = (body: object) => call(suite.server, `/api/v1/users/${created.body.id}`, { method: 'PATCH', key: suite.world.keys.all, body });
	expect((await patch({ name: 'Leaver Renamed' })).status).toBe(200);
	const deactivated = await patch({ status: 'deactivated' });
	// Sends run side by side: the two may arrive in either order.
	const requests = await suite.receiver.waitFor(2);
	const events = requests.map((r) => JSON.parse(r.body));
	expect(requests.map((r) => r.headers['lms-event-type']).sort()).toEqual(['user.deactivated', 'user.updated']);
	const updated = events.find((e) => e.type === 'user.updated');
	const gone = events.find((e) => e.type === 'user.deactivated');
	expect(updated.data).toEqual({ object: expect.objectContaining({ id: created.body.id, name: 'Leaver Renamed' }), previous_attributes: { name: 'Leaver Hook' } });
	expect(gone.data).toEqual({ object: deactivated.body });
	const fromFeed = await waitUntil(async () => {
		const reply = await call(suite.server, `/api/v1/events/${updated.id}`, { key: suite.world.keys.all });
		return reply.status === 200 && reply;
	}, { what: 'the user.updated event in the feed' });
	expect(fromFeed.body).toEqual(updated);
});

test('only subscribed types are sent; "*" gets everything', async () => {
	const { id } = await subscribe(['enrollment.completed']);
	const all = await startReceiver();
	try {
		await subscribe(['*'], all.url);
		await enroll();
		await all.waitFor(1);
		// Deliveries are queued in the transaction that writes the event: none was queued for it.
		expect(await WebhookDelivery.count({ where: { endpointId: id } })).toBe(0);
		expect(suite.receiver.received).toHaveLength(0);
	} finally {
		await all.close();
	}
});

test('a receiver answering 500 then 200: retried after the first delay, delivered once', async () => {
	let calls = 0;
	suite.receiver.answer((_r, res) => res.writeHead(++calls === 1 ? 500 : 200).end());
	const { id } = await subscribe(['enrollment.created']);
	await enroll();
	const [first, second] = await suite.receiver.waitFor(2);
	expect(second.headers['lms-event-id']).toBe(first.headers['lms-event-id']);
	expect(second.at - first.at).toBeGreaterThanOrEqual(RETRY_BASE_MS - 20);
	const [delivery] = await deliveriesOnce(id, ([d]) => d?.status === 'delivered', 'the delivery delivered');
	expect(delivery).toMatchObject({ status: 'delivered', attempts: 2, lastStatusCode: 200 });
	expect(suite.receiver.received).toHaveLength(2);
});

test('a receiver that never answers: cut at the timeout, then retried', async () => {
	let calls = 0;
	suite.receiver.answer((_r, res) => {
		if (++calls > 1) res.writeHead(204).end();
		// The first request is left hanging.
	});
	const { id } = await subscribe(['enrollment.created']);
	await enroll();
	const [first, second] = await suite.receiver.waitFor(2, 10_000);
	// 1 s timeout, then the first retry delay.
	expect(second.at - first.at).toBeGreaterThanOrEqual(1000 + RETRY_BASE_MS - 50);
	const [delivery] = await deliveriesOnce(id, ([d]) => d?.status === 'delivered', 'the delivery delivered');
	expect(delivery).toMatchObject({ status: 'delivered', attempts: 2, lastStatusCode: 204 });
});

test('a deleted endpoint receives nothing more, retries included', async () => {
	suite.receiver.answer((_r, res) => res.writeHead(503).end());
	const { id } = await subscribe(['enrollment.created']);
	await enroll();
	await suite.receiver.waitFor(1);
	const del = await call(suite.server, `/api/v1/webhook_endpoints/${id}`, { method: 'DELETE', key: suite.key });
	expect(del.status).toBe(204);
	await enroll();
	// Its delivery log stays until retention removes it (issue 27): what was owed is marked failed,
	// and nothing is queued for the second event (queued in the transaction that wrote it).
	const deliveries = await deliveriesOnce(id, (rows) => rows.every((d) => d.status === 'failed'), 'the delivery marked failed');
	expect(deliveries.map((d) => [d.status, d.lastError])).toEqual([['failed', 'endpoint deleted']]);
	expect(suite.receiver.received).toHaveLength(1);
});

test('the URL is checked again before each delivery: a host that now points at the metadata address gets nothing', async () => {
	const { id } = await subscribe(['enrollment.created']);
	// As if the host's DNS answer changed after creation (the check resolves it again each time).
	await WebhookEndpoint.update({ url: 'http://169.254.169.254/latest/meta-data/' }, { where: { id } });
	await enroll();
	const [delivery] = await deliveriesOnce(id, ([d]) => (d?.attempts ?? 0) >= 1 && d.leaseToken === null, 'a first attempt recorded');
	expect(delivery.status).toBe('pending');
	expect(delivery.attempts).toBeGreaterThanOrEqual(1);
	expect(delivery.lastStatusCode).toBeNull();
	expect(delivery.lastError).toMatch(/not a public address/);
});

test('an endpoint failing for three days in a row is disabled; its deliveries stop', async () => {
	suite.receiver.answer((_r, res) => res.writeHead(500).end());
	const { id } = await subscribe(['enrollment.created']);
	await WebhookEndpoint.update({ failingSince: new Date(Date.now() - 3 * 24 * 3_600_000 - 1000) }, { where: { id } });
	await enroll();
	await suite.receiver.waitFor(1);
	await waitUntil(async () => (await call(suite.server, `/api/v1/webhook_endpoints/${id}`, { key: suite.key })).body.status === 'disabled', { what: 'the endpoint disabled' });
	await enroll();
	// Nothing is queued for a disabled endpoint (in the transaction that writes the event), and the
	// first delivery's retry ends as failed instead of being sent.
	const deliveries = await deliveriesOnce(id, ([d]) => d?.status === 'failed', 'the retry refused');
	expect(deliveries.map((d) => [d.status, d.lastError])).toEqual([['failed', 'endpoint disabled']]);
	expect(suite.receiver.received).toHaveLength(1);
});

test('a success ends a run of failures', async () => {
	const { id } = await subscribe(['enrollment.created']);
	await WebhookEndpoint.update({ failingSince: new Date(Date.now() - 3_600_000) }, { where: { id } });
	await enroll();
	await suite.receiver.waitFor(1);
	await waitUntil(async () => (await WebhookEndpoint.findByPk(id))!.failingSince === null, { what: 'the run of failures ended' });
});

test('retry schedule: about 1 min, 5 min, 30 min, 2 h, 8 h, 24 h, then failed', () => {
	const now = new Date(0);
	const delays = [1, 2, 3, 4, 5, 6, 7].map((attempts) => nextAttemptAfter(attempts, 60_000, now)?.getTime());
	expect(delays).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000, undefined]);
});

test('retention removes finished deliveries older than the event retention, never pending ones', async () => {
	const { id } = await subscribe(['enrollment.created']);
	const old = new Date(Date.now() - 31 * 24 * 3_600_000);
	const row = (status: 'delivered' | 'failed' | 'pending', n: number) =>
		WebhookDelivery.create({ organizationId: suite.world.acme.id, endpointId: id, eventId: `evt_old${n}`, eventType: 'enrollment.created', status, nextAttemptAt: new Date(Date.now() + 3_600_000), createdAt: old });
	await Promise.all([row('delivered', 1), row('failed', 2), row('pending', 3)]);
	expect(await pruneDeliveries(30)).toBe(2);
	expect((await WebhookDelivery.findAll({ where: { endpointId: id } })).map((d) => d.status)).toEqual(['pending']);
});
