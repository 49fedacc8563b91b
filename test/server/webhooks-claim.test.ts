import { createKey } from '../../server/src/api-keys/lifecycle';
import { database, Event, WebhookDelivery } from '../../server/src/db';
import { writeTransaction } from '../../server/src/db/write-transaction';
import { recordEvent } from '../../server/src/events/record';
import { onPostgres } from '../helpers/database';
import { webhookSuite } from '../helpers/webhook-suite';
import { call } from './api-fixtures';

/**
 * The worker's claim on PostgreSQL passes over due deliveries that another transaction holds
 * locked (another instance's claim in progress) and takes the next ones, instead of waiting for
 * that transaction: two instances claiming at once then both send (bench/webhook-throughput.ts).
 * SQLite has one writer and no row locks: nothing to pass over there.
 */
// The worker looks only when a commit in this process wakes it: nothing claims the row added by hand below.
const suite = webhookSuite({ WEBHOOK_POLL_MS: '60000' }, { receiver: 'suite' });

async function userCreated(organizationId: string, id: string): Promise<void> {
	await writeTransaction(database(), (transaction) => recordEvent(transaction, { organizationId, type: 'user.created', object: { id } }));
}

onPostgres(test)('a claim passes over a due delivery another transaction holds locked and sends the next one', async () => {
	const acme = suite.world.acme.id;
	// The first event is recorded before the endpoint exists; its delivery is added by hand,
	// committed without waking the worker, so it stays due and unclaimed until it is locked.
	await userCreated(acme, 'usr_claim_locked');
	const first = (await Event.findAll({ where: { organizationId: acme, type: 'user.created' } })).find((e) => JSON.parse(e.data).id === 'usr_claim_locked');
	const key = (await createKey({ organizationId: acme, label: 'hooks', scopes: ['read:users', 'manage:webhooks'], actor: { kind: 'cli' } })).secret;
	const reply = await call(suite.server, '/api/v1/webhook_endpoints', { method: 'POST', key, body: { url: suite.receiver.url, events: ['user.created'] } });
	expect(reply.status).toBe(201);
	const locked = await WebhookDelivery.create({ organizationId: acme, endpointId: reply.body.id, eventId: first!.id, eventType: 'user.created', nextAttemptAt: new Date() });

	let release!: () => void;
	const held = new Promise<void>((resolve) => (release = resolve));
	let lockTaken!: () => void;
	const taken = new Promise<void>((resolve) => (lockTaken = resolve));
	const holder = writeTransaction(database(), async (transaction) => {
		const rows = await WebhookDelivery.findAll({ where: { id: locked.id }, lock: true, transaction });
		expect(rows.map((r) => [r.status, r.attempts])).toEqual([['pending', 0]]);
		lockTaken();
		await held;
	});
	try {
		await Promise.race([taken, holder]);
		// The second event's delivery commits and wakes the worker while the first is locked.
		await userCreated(acme, 'usr_claim_next');
		const [got] = await suite.receiver.waitFor(1, 10_000);
		expect(JSON.parse(got.body).data.object.id).toBe('usr_claim_next');
	} finally {
		release();
		await holder;
	}
	// Released, the first is sent too (by the next pass: the second's end woke the worker, the lock was held then).
	await userCreated(acme, 'usr_claim_after');
	await suite.receiver.waitFor(3, 10_000);
	expect(suite.receiver.received.map((r) => JSON.parse(r.body).data.object.id).sort()).toEqual(['usr_claim_after', 'usr_claim_locked', 'usr_claim_next']);
}, 60_000);
