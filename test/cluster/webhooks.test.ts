import { Client } from 'pg';

import { createPostgresDatabase, type TestDatabase, onPostgres } from '../helpers/database';
import { startInstance, type Instance } from '../helpers/instances';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { waitUntil } from '../helpers/wait';
import { api, freePairs, prepareDeployment } from '../helpers/webhook-deployment';

/**
 * Two `lms-server` processes on one PostgreSQL database both send webhooks: the lease
 * (FOR UPDATE SKIP LOCKED) must make each attempt leave from one instance only. Three
 * receivers; the third refuses the first attempt of every event, so retries race too. Then all
 * 360 deliveries are due again at the same instant: both instances claim them in batches of many
 * rows (issue 40), and each is still sent once more, by one instance.
 */
const EVENTS = 120;

let database: TestDatabase;
const instances: Instance[] = [];
const receivers: Receiver[] = [];

afterAll(async () => {
	await Promise.all(instances.map((i) => i.stop()));
	await Promise.all(receivers.map((r) => r.close()));
	if (database) await database.remove();
});

onPostgres(test)('each event is delivered once per endpoint, whichever instance sends it', async () => {
	database = await createPostgresDatabase();
	const { key } = await prepareDeployment(database.databaseUrl);
	const env = {
		DATABASE_URL: database.databaseUrl,
		RATE_LIMIT_PER_MINUTE: '1000000',
		WEBHOOK_ALLOW_PRIVATE: 'true',
		WEBHOOK_RETRY_BASE_MS: '200',
		// Both instances poll hard, so they compete for every row.
		WEBHOOK_POLL_MS: '20',
	};
	instances.push(...(await Promise.all([startInstance(env), startInstance(env)])));
	receivers.push(...(await Promise.all([startReceiver(), startReceiver(), startReceiver()])));
	const refusedOnce = new Set<string>();
	receivers[2].answer((request, res) => {
		const id = String(request.headers['lms-event-id']);
		const refuse = !refusedOnce.has(id);
		refusedOnce.add(id);
		res.writeHead(refuse ? 500 : 200).end();
	});
	const endpointIds: string[] = [];
	for (const receiver of receivers) {
		const reply = await api(instances[0].url, key, '/api/v1/webhook_endpoints', { method: 'POST', body: { url: receiver.url, events: ['enrollment.created'] } });
		expect(reply.status).toBe(201);
		endpointIds.push(reply.body.id as string);
	}

	const pairs = (await freePairs(instances[0].url, key)).slice(0, EVENTS);
	const created = await Promise.all(
		pairs.map((pair, i) => api(instances[i % 2].url, key, '/api/v1/enrollments', { method: 'POST', body: pair })),
	);
	expect(created.map((r) => r.status)).toEqual(pairs.map(() => 201));
	const enrollmentIds = created.map((r) => r.body.id as string).sort();

	await Promise.all([receivers[0].waitFor(EVENTS, 30_000), receivers[1].waitFor(EVENTS, 30_000), receivers[2].waitFor(2 * EVENTS, 30_000)]);
	// Every delivery recorded delivered is owed nothing more: only then is what the receivers got final.
	const total = async (path: string) => (await api(instances[0].url, key, path)).body.pagination.total as number;
	const settled = async (endpointId: string) =>
		(await total(`/api/v1/webhook_endpoints/${endpointId}/deliveries?status=delivered&per_page=1`)) === EVENTS &&
		(await total(`/api/v1/webhook_endpoints/${endpointId}/deliveries?per_page=1`)) === EVENTS;
	await waitUntil(async () => (await Promise.all(endpointIds.map(settled))).every(Boolean), { timeout: 30_000, what: 'every delivery recorded delivered' });
	for (const [index, receiver] of receivers.entries()) {
		const perEvent = new Map<string, number>();
		for (const r of receiver.received) perEvent.set(String(r.headers['lms-event-id']), (perEvent.get(String(r.headers['lms-event-id'])) ?? 0) + 1);
		expect(perEvent.size).toBe(EVENTS);
		// One attempt each; the third receiver saw exactly one refused attempt and one retry.
		expect(new Set(perEvent.values())).toEqual(new Set([index === 2 ? 2 : 1]));
		const objects = receiver.received.map((r) => JSON.parse(r.body).data.object.id as string);
		expect([...new Set(objects)].sort()).toEqual(enrollmentIds);
	}

	// All due again at once, as a resend of everything would make them.
	const before = receivers.map((r) => r.received.length);
	const client = new Client({ connectionString: database.databaseUrl });
	await client.connect();
	try {
		await client.query("UPDATE webhook_deliveries SET status = 'pending', attempts = 0, delivered_at = NULL, next_attempt_at = now()");
		await Promise.all(receivers.map((r, i) => r.waitFor(before[i] + EVENTS, 30_000)));
		const delivered = async () =>
			(await client.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'delivered' AND attempts = 1")).rows[0].n === 3 * EVENTS;
		await waitUntil(delivered, { timeout: 30_000, what: 'every delivery recorded delivered again after one attempt' });
		// Claims took many rows each: rows claimed together share their claim's time.
		const claims = await client.query('SELECT count(*)::int AS n FROM webhook_deliveries GROUP BY last_attempt_at ORDER BY n DESC LIMIT 1');
		expect(claims.rows[0].n).toBeGreaterThan(1);
	} finally {
		await client.end();
	}
	for (const [index, receiver] of receivers.entries()) {
		const again = receiver.received.slice(before[index]).map((r) => String(r.headers['lms-event-id']));
		expect(again).toHaveLength(EVENTS);
		expect(new Set(again).size).toBe(EVENTS);
	}
});
