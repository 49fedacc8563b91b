import { createPostgresDatabase, createSqliteDatabase, testDialect, type TestDatabase } from '../helpers/database';
import { startInstance, type Instance } from '../helpers/instances';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { waitUntil } from '../helpers/wait';
import { api, freePairs, prepareDeployment } from '../helpers/webhook-deployment';

/**
 * `kill -9` of the server while a delivery is on the wire: the attempt is stored with a lease,
 * so the restarted server takes it again once the lease has passed and the event arrives.
 * Runs on a SQLite file, and on PostgreSQL too with TEST_DATABASE=postgres.
 */
const DIALECTS = testDialect() === 'postgres' ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
const TIMEOUT_MS = 1000;

let db: TestDatabase | undefined;
let receiver: Receiver | undefined;
let instance: Instance | undefined;
afterEach(async () => {
	await instance?.stop(1000);
	await receiver?.close();
	await db?.remove();
});

test.each(DIALECTS)('%s: kill -9 between the event and its delivery; delivered after the restart', async (dialect) => {
	db = dialect === 'sqlite' ? await createSqliteDatabase() : await createPostgresDatabase();
	const { key } = await prepareDeployment(db.databaseUrl);
	const env = {
		DATABASE_URL: db.databaseUrl,
		RATE_LIMIT_PER_MINUTE: '1000000',
		WEBHOOK_ALLOW_PRIVATE: 'true',
		WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
		WEBHOOK_RETRY_BASE_MS: '200',
		WEBHOOK_POLL_MS: '100',
	};
	receiver = await startReceiver();
	// The first request is never answered: the server is killed while it waits.
	receiver.answer((_request, res) => {
		if (receiver!.received.length > 1) res.writeHead(200).end();
	});
	instance = await startInstance(env);
	const endpoint = await api(instance.url, key, '/api/v1/webhook_endpoints', { method: 'POST', body: { url: receiver.url, events: ['*'] } });
	expect(endpoint.status).toBe(201);
	const [pair] = await freePairs(instance.url, key);
	const enrollment = await api(instance.url, key, '/api/v1/enrollments', { method: 'POST', body: pair });
	expect(enrollment.status).toBe(201);
	const [first] = await receiver.waitFor(1);
	process.kill(instance.pid, 'SIGKILL');
	await instance.stop();

	instance = await startInstance(env);
	// The dead instance's lease (3 × timeout + 5 s) runs out, then the attempt is taken again.
	const [, second] = await receiver.waitFor(2, 20_000);
	expect(second.headers['lms-event-id']).toBe(first.headers['lms-event-id']);
	expect(JSON.parse(second.body).data.object.id).toBe(enrollment.body.id);
	// Once the delivery is recorded delivered it is owed nothing more: then the receiver has it twice, not more.
	const delivery = await waitUntil(
		async () => {
			const list = await api(instance!.url, key, `/api/v1/webhook_endpoints/${endpoint.body.id}/deliveries`);
			const [row] = list.body.data as Array<{ status: string; attempts: number }>;
			return row?.status === 'delivered' && row;
		},
		{ what: 'the delivery recorded as delivered' },
	);
	expect(delivery.attempts).toBe(2);
	expect(receiver.received).toHaveLength(2);
});
