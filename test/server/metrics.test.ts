import { createKey } from '../../server/src/api-keys/lifecycle';
import { loadConfig } from '../../server/src/config';
import { database } from '../../server/src/db';
import { writeTransaction } from '../../server/src/db/write-transaction';
import { recordEvent } from '../../server/src/events/record';
import { jobTable } from '../../server/src/jobs/table';
import { Client } from 'pg';
import pino from 'pino';

import { onPostgres } from '../helpers/database';
import { freePort } from '../helpers/ports';
import { startReceiver } from '../helpers/receiver';
import { waitUntil } from '../helpers/wait';
import type { TestServer } from '../helpers/server';
import { call, NO_LIMIT, startApiServer, type World } from './api-fixtures';

/**
 * GET /metrics (SPEC §19): Prometheus' text format, answered only with METRICS_TOKEN as a Bearer
 * token on the server's port, or without one on METRICS_PORT, bound to loopback; otherwise not
 * there at all.
 */
const TOKEN = 'metrics-token-for-tests-0123456789';

/** The value of one sample (name and labels as Prometheus prints them), or undefined. */
function sample(text: string, series: string): number | undefined {
	const line = text.split('\n').find((l) => l.startsWith(`${series} `));
	return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('with METRICS_TOKEN', () => {
	let server: TestServer;
	let world: World;
	beforeAll(async () => {
		({ server, world } = await startApiServer({ ...NO_LIMIT, METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '100' }));
	});
	afterAll(() => server.stop());

	const scrape = (token?: string) => fetch(`${server.baseUrl}/metrics`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

	test('without the token, or with another, a 401 problem that says what to send', async () => {
		for (const token of [undefined, 'wrong', TOKEN.slice(0, -1), world.keys.all]) {
			const res = await scrape(token);
			expect(res.status).toBe(401);
			expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
			const body = (await res.json()) as { code: string; detail: string };
			expect(body.code).toBe('invalid_metrics_token');
			expect(body.detail).toMatch(/METRICS_TOKEN/);
		}
	});

	test('requests by route and status with their latency, the feed, webhooks and the database pool', async () => {
		expect((await call(server, '/api/v1/users', { key: world.keys.all })).status).toBe(200);
		expect((await call(server, `/api/v1/users/${world.users.alice.id}`, { key: world.keys.all })).status).toBe(200);
		expect((await call(server, '/api/v1/users/usr_nobody', { key: world.keys.all })).status).toBe(404);

		// A webhook delivered, so the outcome counter has something to count.
		const receiver = await startReceiver();
		const hooks = (await createKey({ organizationId: world.acme.id, label: 'hooks', scopes: ['read:users', 'manage:webhooks'], actor: { kind: 'cli' } })).secret;
		expect((await call(server, '/api/v1/webhook_endpoints', { method: 'POST', key: hooks, body: { url: receiver.url, events: ['user.created'] } })).status).toBe(201);
		await writeTransaction(database(), (transaction) => recordEvent(transaction, { organizationId: world.acme.id, type: 'user.created', object: { id: 'usr_metrics' } }));
		await receiver.waitFor(1);
		await receiver.close();

		// The outcome is recorded just after the receiver answers: wait for it.
		const text = await waitUntil(async () => {
			const res = await scrape(TOKEN);
			expect(res.status).toBe(200);
			expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
			expect(res.headers.get('cache-control')).toBe('no-store');
			const scraped = await res.text();
			return (sample(scraped, 'lms_webhook_deliveries_total{outcome="delivered"}') ?? 0) >= 1 && scraped;
		}, { what: 'the delivered outcome counted' });
		expect(sample(text, 'lms_http_requests_total{method="GET",route="/api/v1/users",status="200"}')).toBe(1);
		expect(sample(text, 'lms_http_requests_total{method="GET",route="/api/v1/users/:id",status="200"}')).toBe(1);
		expect(sample(text, 'lms_http_requests_total{method="GET",route="/api/v1/users/:id",status="404"}')).toBe(1);
		expect(sample(text, 'lms_http_request_duration_seconds_count{method="GET",route="/api/v1/users",status="200"}')).toBe(1);
		expect(sample(text, 'lms_webhook_deliveries_total{outcome="delivered"}')).toBeGreaterThanOrEqual(1);
		expect(sample(text, 'lms_webhook_deliveries_pending')).toBe(0);
		expect(sample(text, 'lms_webhook_oldest_due_seconds')).toBe(0);
		expect(sample(text, 'lms_event_feed_lag_seconds')).toBe(0);
		expect(sample(text, 'lms_db_pool_connections{state="max"}')).toBeGreaterThanOrEqual(1);
		expect(sample(text, 'lms_db_pool_connections{state="open"}')).toBeLessThanOrEqual(sample(text, 'lms_db_pool_connections{state="max"}')!);
		// Counted under load in data-layer.test.ts ("the pool watch…").
		expect(sample(text, 'lms_db_pool_waiting')).toBe(0);
		expect(text).toMatch(/^# HELP lms_throttled_requests_total /m);
		// Nothing identifies a caller: no key, no address.
		expect(text).not.toContain(world.keys.all);
		expect(text).not.toContain('127.0.0.1');
	});

	test('every background job of the table shows its last pass, how long passes take and their failures', async () => {
		const jobs = jobTable({ config: loadConfig({}), db: database(), logger: pino({ level: 'silent' }) }).map((job) => job.name);
		expect(jobs).toEqual(expect.arrayContaining(['webhook_deliveries', 'overdue_sweep', 'key_expiry_sweep', 'event_retention', 'delivery_retention', 'idempotency_retention']));
		// Each job passes once at start: wait until the slowest has.
		const text = await waitUntil(async () => {
			const scraped = await (await scrape(TOKEN)).text();
			return jobs.every((job) => sample(scraped, `lms_job_duration_seconds_count{job="${job}"}`)! >= 1) && scraped;
		}, { what: 'a first pass of every job' });
		for (const job of jobs) {
			const last = sample(text, `lms_job_last_run_timestamp_seconds{job="${job}"}`)!;
			expect(Math.abs(last - Date.now() / 1000)).toBeLessThan(120);
			expect(sample(text, `lms_job_duration_seconds_sum{job="${job}"}`)).toBeGreaterThan(0);
			expect(sample(text, `lms_job_errors_total{job="${job}"}`) ?? 0).toBe(0);
		}
	});
});

describe('with METRICS_TOKEN, on PostgreSQL', () => {
	let server: TestServer;
	let world: World;
	beforeAll(async () => {
		({ server, world } = await startApiServer({ ...NO_LIMIT, METRICS_TOKEN: TOKEN }));
	});
	afterAll(() => server.stop());

	const lag = async () => {
		const text = await (await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
		return sample(text, 'lms_event_feed_lag_seconds')!;
	};

	onPostgres(test)('the feed lag stays 0 while a write transaction of this database is open: committed events are served at once', async () => {
		const held = new Client({ connectionString: server.databaseUrl });
		await held.connect();
		try {
			await held.query('BEGIN');
			await held.query('SELECT pg_current_xact_id()');
			// Committed after the held transaction began: numbered at its commit, so served now.
			await writeTransaction(database(), (transaction) => recordEvent(transaction, { organizationId: world.acme.id, type: 'user.created', object: { id: 'usr_lag' } }));
			await waitUntil(async () => {
				const feed = await fetch(`${server.baseUrl}/api/v1/events/head`, { headers: { authorization: `Bearer ${world.keys.all}` } });
				const { after } = (await feed.json()) as { after: string | null };
				const one = await fetch(`${server.baseUrl}/api/v1/events/${after}`, { headers: { authorization: `Bearer ${world.keys.all}` } });
				return ((await one.json()) as { data?: { object?: { id?: string } } }).data?.object?.id === 'usr_lag';
			}, { interval: 100, what: 'the event served' });
			expect(await lag()).toBe(0);
		} finally {
			await held.query('COMMIT').catch(() => undefined);
			await held.end();
		}
	});
});

describe('with METRICS_PORT', () => {
	let server: TestServer;
	let world: World;
	let port: number;
	beforeAll(async () => {
		port = await freePort();
		({ server, world } = await startApiServer({ RATE_LIMIT_PER_MINUTE: '3', METRICS_PORT: String(port) }));
	});
	afterAll(() => server.stop());

	test('answered on loopback without a token; the server port has no /metrics; throttled requests counted', async () => {
		expect((await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
		const statuses: number[] = [];
		for (let i = 0; i < 5; i++) statuses.push((await call(server, '/api/v1/courses', { key: world.keys.all })).status);
		expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);

		const res = await fetch(`http://127.0.0.1:${port}/metrics`);
		expect(res.status).toBe(200);
		const text = await res.text();
		expect(sample(text, 'lms_throttled_requests_total{limit="api"}')).toBeGreaterThanOrEqual(1);
		// Refused before any route matched: counted under route "none".
		expect(sample(text, 'lms_http_requests_total{method="GET",route="none",status="429"}')).toBeGreaterThanOrEqual(1);
		// The metrics port serves nothing else.
		expect((await fetch(`http://127.0.0.1:${port}/api/v1/courses`)).status).toBe(404);
	});
});

test('neither METRICS_TOKEN nor METRICS_PORT: there is no /metrics', async () => {
	const { server } = await startApiServer();
	try {
		expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404);
	} finally {
		await server.stop();
	}
});
