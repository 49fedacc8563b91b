import { WebhookDelivery, WebhookDeliveryAttempt } from '../../server/src/db';
import { MAX_ATTEMPTS } from '../../server/src/webhooks/schedule';
import { waitUntil } from '../helpers/wait';
import { webhookSuite } from '../helpers/webhook-suite';
import { call } from './api-fixtures';

/**
 * SPEC §22: a manual resend (`…/retry`) of a failing delivery races the worker's scheduled retry
 * of the same delivery. Whichever wins, each send is recorded once as an attempt (the count on
 * the delivery, its attempts list and the receiver agree), the schedule continues after (pending,
 * next attempt in the future, the count not reset), and nothing is sent beyond the two intended
 * (the scheduled retry and the resend; they may also coincide in one). Run on PostgreSQL
 * (TEST_DATABASE=postgres), where the worker's claim and the resend are concurrent transactions.
 *
 * The schedule's base is a minute, so no retry comes due by itself during the test: each round
 * makes the scheduled retry due now (as the clock would) and sends the resend at that moment.
 */
const suite = webhookSuite({ WEBHOOK_RETRY_BASE_MS: '60000', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_POLL_MS: '20' });

const hooks = (path: string, options: Parameters<typeof call>[2] = {}) => call(suite.server, `/api/v1/webhook_endpoints${path}`, { key: suite.world.keys.all, ...options });

test('a resend racing the scheduled retry: each attempt recorded once, the schedule continues, at most the two intended sends', async () => {
	const created = await hooks('', { method: 'POST', body: { url: suite.receiver.url, events: ['user.created'] } });
	expect(created.status).toBe(201);
	const endpointId: string = created.body.id;
	// The receiver fails every send: the delivery stays on its schedule.
	suite.receiver.answer((_r, res) => res.writeHead(503).end('busy'));
	const user = await call(suite.server, '/api/v1/users', { method: 'POST', key: suite.world.keys.all, body: { name: 'Race Resend', email: 'race.resend@acme.example' } });
	expect(user.status).toBe(201);
	await suite.receiver.waitFor(1);
	const delivery = await waitUntil(
		async () => {
			const row = await WebhookDelivery.findOne({ where: { endpointId } });
			return row && row.status === 'pending' && row.attempts === 1 && row.leaseToken === null && row.nextAttemptAt !== null && row.nextAttemptAt.getTime() > Date.now() && row;
		},
		{ what: 'the first attempt failed and the next scheduled' },
	);
	const eventId = String(suite.receiver.received[0].headers['lms-event-id']);
	const sendsOfEvent = () => suite.receiver.received.filter((r) => r.headers['lms-event-id'] === eventId).length;
	const recorded = () => WebhookDeliveryAttempt.count({ where: { deliveryId: delivery.id } });

	const outcomes: number[] = [];
	for (let round = 0; round < 8; round++) {
		// Each round starts from one attempt made, so the schedule never runs out.
		await WebhookDelivery.update({ attempts: 1 }, { where: { id: delivery.id } });
		const sendsBefore = sendsOfEvent();
		const recordedBefore = await recorded();
		const startedAt = Date.now();
		// The scheduled retry comes due and the resend is sent at once, in either order by round,
		// so the resend meets the worker's claim before, during or after it.
		const due = () => WebhookDelivery.update({ nextAttemptAt: new Date() }, { where: { id: delivery.id } });
		const resend = () => hooks(`/${endpointId}/deliveries/${delivery.id}/retry`, { method: 'POST', body: {} });
		let resent: Awaited<ReturnType<typeof resend>>;
		if (round % 2 === 0) [resent] = await Promise.all([resend(), due()]);
		else {
			await due();
			resent = await resend();
		}
		expect(resent.status).toBe(200);
		// Settled: nobody holds it and its next attempt lies ahead again (the resend has answered,
		// so whatever it made due has been sent by then).
		const settled = await waitUntil(
			async () => {
				const row = (await WebhookDelivery.findByPk(delivery.id))!;
				return row.leaseToken === null && row.nextAttemptAt !== null && row.nextAttemptAt.getTime() > Date.now() + 30_000 && row;
			},
			{ what: `round ${round}: the delivery back on its schedule` },
		);
		const sends = sendsOfEvent() - sendsBefore;
		outcomes.push(sends);
		expect(sends).toBeGreaterThanOrEqual(1);
		expect(sends).toBeLessThanOrEqual(2);
		expect(settled.status).toBe('pending');
		expect(settled.attempts).toBe(1 + sends);
		expect(settled.attempts).toBeLessThan(MAX_ATTEMPTS);
		expect((await recorded()) - recordedBefore).toBe(sends);
		// The schedule continues from the attempts made: the next one at least a minute after the last send.
		expect(settled.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(startedAt + 60_000);
	}
	// Nothing more arrives once every round has settled.
	const total = sendsOfEvent();
	await hooks(`/${endpointId}/deliveries`);
	expect(sendsOfEvent()).toBe(total);
	expect(await recorded()).toBe(total);
	expect(outcomes.every((n) => n === 1 || n === 2)).toBe(true);
}, 60_000);
