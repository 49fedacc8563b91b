/**
 * Webhook throughput (issue 27): 10,000 events × 3 endpoints (30,000 deliveries) to receivers
 * on 127.0.0.1 that answer 200 after 50 ms, through the normal path: PATCH progress →
 * `enrollment.progressed` committed with its three delivery rows → the worker's claim, send and
 * record. Three set-ups, each a fresh database: one `lms-server start` on SQLite, one on
 * PostgreSQL, and two on one PostgreSQL database with one Redis (docs/production.md: migrate
 * once, then `start --no-migrate` on each), the writes spread over both and both workers
 * delivering.
 *
 * Deliveries per second: 30,000 ÷ (the last delivery reaching its receiver − sending the first
 * PATCH, which is before its commit: the rate is a lower bound). Writing runs meanwhile, 20
 * enrollments changed one PATCH after another each, 20 at a time; its own duration is shown so a
 * run bounded by the writes, not the worker, shows as one.
 *
 * None lost or doubled: every receiver has 10,000 requests with 10,000 distinct
 * `LMS-Event-Id`s, and the deliveries API lists 10,000 per endpoint, each `delivered` after one
 * attempt, 10,000 distinct events. Also shown: the most requests the receivers held at once (the
 * worker's caps: PER_ORGANIZATION sends per organization per instance, all events here are one
 * organization's) and, from each instance's /metrics, how many it delivered.
 *
 * Then, against the hand-written baseline (bench/webhook-baseline.ts, one instance only): every
 * delivery is made due again in one UPDATE, and the server sends them all again (its CPU per
 * delivery here is delivery alone, no writes); the server stops, they are made due once more and
 * the baseline sends them from the same database to the same receivers. Ratio = server ÷ baseline
 * deliveries a second, each checked none lost or doubled.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Client } from 'pg';
import sqlite3 from 'sqlite3';

import { heading, lmsCli, median, startLms, table, tempPostgres, tempSqlite, type ChildServer } from './lib';
import { api, newEnrollments } from './webhooks';
import { startReceiver, type Receiver } from '../test/helpers/receiver';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const ENDPOINTS = 3;
const CHAINS = 20;
const ANSWER_MS = 50;
/** The worker's per-organization cap (server/src/webhooks/worker.ts), for the ceiling column. */
const BASELINE_JS = join(__dirname, 'webhook-baseline.js');
const PER_ORGANIZATION = 48;
const METRICS_TOKEN = 'bench-metrics-token-0123456789';

type Variant = 'sqlite' | 'postgres' | 'two-instances';
const VARIANTS: Variant[] = ['sqlite', 'postgres', 'two-instances'];

function variantsAsked(): Variant[] {
	const asked = (process.env.BENCH_WEBHOOK_THROUGHPUT ?? VARIANTS.join(',')).split(',').map((v) => v.trim());
	const unknown = asked.filter((v) => !VARIANTS.includes(v as Variant));
	if (unknown.length > 0) throw new Error(`BENCH_WEBHOOK_THROUGHPUT: unknown ${unknown.join(', ')}; choose from ${VARIANTS.join(', ')}`);
	return asked as Variant[];
}

/** A receiver that answers 200 after ANSWER_MS, counting the requests it holds at once. */
async function slowReceiver(concurrency: { now: number; max: number }): Promise<Receiver> {
	const receiver = await startReceiver();
	receiver.answer((_request, res) => {
		concurrency.now += 1;
		concurrency.max = Math.max(concurrency.max, concurrency.now);
		res.once('close', () => (concurrency.now -= 1));
		setTimeout(() => res.writeHead(200).end('ok'), ANSWER_MS);
	});
	return receiver;
}

/** Deliveries this instance recorded delivered, from its /metrics. */
async function deliveredBy(server: ChildServer): Promise<number> {
	const res = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
	const text = await res.text();
	if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${text}`);
	return Number(/^lms_webhook_deliveries_total\{outcome="delivered"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

/** What the deliveries API says of one endpoint: how many rows, delivered after one attempt, distinct events. */
async function ledger(baseUrl: string, key: string, endpointId: string) {
	let rows = 0;
	let deliveredOnce = 0;
	const events = new Set<string>();
	for (let page = 1; ; page++) {
		const body = await api(baseUrl, key, `/api/v1/webhook_endpoints/${endpointId}/deliveries?per_page=100&page=${page}`);
		for (const d of body.data as Array<{ event_id: string; status: string; attempts: number }>) {
			rows += 1;
			if (d.status === 'delivered' && d.attempts === 1) deliveredOnce += 1;
			events.add(d.event_id);
		}
		if (page * 100 >= body.pagination.total) break;
	}
	return { rows, deliveredOnce, distinct: events.size };
}

/** Every delivery due again now, as never attempted, in one UPDATE. */
async function dueAgain(databaseUrl: string): Promise<void> {
	const sql = "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, delivered_at = NULL, lease_until = NULL, lease_token = NULL, next_attempt_at = ";
	if (databaseUrl.startsWith('sqlite:')) {
		const db = new sqlite3.Database(databaseUrl.slice('sqlite:'.length));
		await new Promise<void>((resolve, reject) => db.run(`${sql}'2000-01-01 00:00:00.000 +00:00'`, (err) => (err ? reject(err) : resolve())));
		await new Promise((resolve) => db.close(resolve));
		return;
	}
	const client = new Client({ connectionString: databaseUrl });
	await client.connect();
	await client.query(`${sql}'2000-01-01T00:00:00Z'`);
	await client.end();
}

/** Waits until every receiver has `count` more requests; returns when the last arrived, and whether they are `count` distinct events each. */
async function moreReceived(receivers: Receiver[], before: number[], count: number): Promise<{ last: number; exact: boolean }> {
	await Promise.all(receivers.map((r, i) => r.waitFor(before[i] + count, 30 * 60_000)));
	const last = Math.max(...receivers.map((r, i) => r.received[before[i] + count - 1].at));
	const exact = receivers.every((r, i) => new Set(r.received.slice(before[i]).map((x) => String(x.headers['lms-event-id']))).size === count);
	return { last, exact };
}

async function deliveredCount(baseUrl: string, key: string, endpointId: string): Promise<number> {
	return (await api(baseUrl, key, `/api/v1/webhook_endpoints/${endpointId}/deliveries?status=delivered&per_page=1`)).pagination.total as number;
}

async function oneSetup(variant: Variant): Promise<string[]> {
	const db = variant === 'sqlite' ? tempSqlite() : await tempPostgres();
	const servers: ChildServer[] = [];
	const receivers: Receiver[] = [];
	try {
		const { databaseUrl } = db;
		await lmsCli(['migrate'], { DATABASE_URL: databaseUrl });
		await lmsCli(['seed', '--demo', '--json'], { DATABASE_URL: databaseUrl });
		const { key } = JSON.parse(
			await lmsCli(['keys', 'create', '--org', 'acme', '--label', 'bench', '--scopes', 'read:users,read:courses,read:enrollments,write:enrollments,manage:webhooks', '--json'], {
				DATABASE_URL: databaseUrl,
			}),
		) as { key: string };
		const env: Record<string, string> = {
			DATABASE_URL: databaseUrl,
			RATE_LIMIT_PER_MINUTE: '100000000',
			WEBHOOK_ALLOW_PRIVATE: 'true',
			LOG_LEVEL: 'error',
			METRICS_TOKEN,
			WEBHOOK_POLL_MS: '100',
		};
		if (variant === 'two-instances') {
			// docs/production.md: the per-IP limit in Redis, one session secret, migrations run once above.
			Object.assign(env, {
				REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
				RATE_LIMIT_REDIS_PREFIX: `lms:bench:${process.pid}:${Date.now()}:`,
				NODE_ENV: 'production',
				SESSION_SECRET: 'bench session secret, 32 characters or more',
			});
			servers.push(...(await Promise.all([startLms(env, ['--no-migrate']), startLms(env, ['--no-migrate'])])));
		} else {
			servers.push(await startLms(env, ['--no-migrate']));
		}
		const first = servers[0].baseUrl;
		// Before any endpoint exists: their enrollment.created events go nowhere.
		const enrollments = await newEnrollments(first, key, CHAINS);
		if (enrollments.length < CHAINS) throw new Error(`only ${enrollments.length} free student–course pairs in the demo data`);
		const concurrency = { now: 0, max: 0 };
		for (let i = 0; i < ENDPOINTS; i++) receivers.push(await slowReceiver(concurrency));
		const endpointIds: string[] = [];
		for (const receiver of receivers) {
			endpointIds.push((await api(first, key, '/api/v1/webhook_endpoints', { method: 'POST', body: { url: receiver.url, events: ['enrollment.progressed'] } })).id);
		}

		const steps = Math.ceil(EVENTS / CHAINS);
		const events = steps * CHAINS;
		const cpuBefore = servers.map((s) => s.cpuSeconds());
		const started = Date.now();
		await Promise.all(
			enrollments.map(async (id, chain) => {
				const { baseUrl } = servers[chain % servers.length];
				// A new enrollment is at 0 %: 11, 10, 11, … each PATCH a change, none completes it.
				for (let step = 1; step <= steps; step++) {
					await api(baseUrl, key, `/api/v1/enrollments/${id}`, { method: 'PATCH', body: { progress_percent: 10 + (step % 2) } });
				}
			}),
		);
		const written = Date.now() - started;
		await Promise.all(receivers.map((r) => r.waitFor(events, 30 * 60_000)));
		const last = Math.max(...receivers.map((r) => r.received[events - 1].at));
		const seconds = (last - started) / 1000;
		const cpu = servers.reduce((sum, s, i) => sum + s.cpuSeconds() - cpuBefore[i], 0);

		// Once the database says every delivery delivered, no attempt is left to send: only then are the receivers' counts final.
		const deadline = Date.now() + 120_000;
		while ((await Promise.all(endpointIds.map((id) => deliveredCount(first, key, id)))).some((n) => n < events)) {
			if (Date.now() > deadline) throw new Error('deliveries not all recorded delivered within 120 s of the last one arriving');
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
		const books = await Promise.all(endpointIds.map((id) => ledger(first, key, id)));
		const got = receivers.map((r) => ({ received: r.received.length, distinct: new Set(r.received.map((x) => String(x.headers['lms-event-id']))).size }));
		const exact =
			got.every((g) => g.received === events && g.distinct === events) && books.every((b) => b.rows === events && b.deliveredOnce === events && b.distinct === events);
		const byInstance = await Promise.all(servers.map(deliveredBy));
		// Commit → receiver: the event's created_at (just before its commit) to its arrival.
		const latency = median(receivers.flatMap((r) => r.received.map((x) => x.at - Date.parse(JSON.parse(x.body).created_at))));

		let paired = ['', '', '', ''];
		if (servers.length === 1) {
			const deliveries = events * ENDPOINTS;
			let before = receivers.map((r) => r.received.length);
			const cpuAgain = servers[0].cpuSeconds();
			const again = Date.now();
			await dueAgain(databaseUrl);
			const server = await moreReceived(receivers, before, events);
			const serverCpu = servers[0].cpuSeconds() - cpuAgain;
			const serverRate = deliveries / ((server.last - again) / 1000);
			// Recorded before the server stops, so the baseline starts from every row delivered.
			const deadline = Date.now() + 120_000;
			while ((await Promise.all(endpointIds.map((id) => deliveredCount(first, key, id)))).some((n) => n < events)) {
				if (Date.now() > deadline) throw new Error('redeliveries not all recorded within 120 s');
				await new Promise((resolve) => setTimeout(resolve, 200));
			}
			await servers[0].stop();
			await dueAgain(databaseUrl);
			before = receivers.map((r) => r.received.length);
			const { stdout } = await promisify(execFile)(process.execPath, [BASELINE_JS], {
				env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, BENCH_BASELINE_EXPECT: String(deliveries) },
				maxBuffer: 1 << 20,
			});
			const baseline = JSON.parse(stdout) as { deliveries: number; seconds: number; cpuMs: number };
			const baselineExact = (await moreReceived(receivers, before, events)).exact;
			const baselineRate = deliveries / baseline.seconds;
			paired = [
				`${serverRate.toFixed(0)} / ${baselineRate.toFixed(0)}: **${(serverRate / baselineRate).toFixed(2)}×**`,
				`${((serverCpu * 1000) / deliveries).toFixed(2)} / ${(baseline.cpuMs / deliveries).toFixed(2)} ms`,
				server.exact && baselineExact ? 'none lost, none doubled' : 'MISSED',
			];
		}
		const label = { sqlite: 'SQLite, one instance', postgres: 'PostgreSQL, one instance', 'two-instances': 'PostgreSQL + Redis, two instances' }[variant];
		return [
			label,
			`${(events * ENDPOINTS).toLocaleString('en-US')}`,
			`${((events * ENDPOINTS) / seconds).toFixed(0)}`,
			`${seconds.toFixed(1)} s`,
			`${(written / 1000).toFixed(1)} s`,
			`${((cpu * 1000) / (events * ENDPOINTS)).toFixed(1)} ms`,
			`${concurrency.max} (ceiling ${PER_ORGANIZATION * servers.length}: ${((PER_ORGANIZATION * servers.length * 1000) / ANSWER_MS).toFixed(0)}/s)`,
			byInstance.map((n) => n.toLocaleString('en-US')).join(' + '),
			got.map((g) => `${g.received}/${g.distinct}`).join(', '),
			books.map((b) => `${b.deliveredOnce}/${b.distinct}`).join(', '),
			exact ? 'none lost, none doubled' : 'MISSED',
			`${latency.toFixed(0)} ms`,
			...paired.slice(0, 3),
		];
	} finally {
		await Promise.all(receivers.map((r) => r.close()));
		await Promise.all(servers.map((s) => s.stop()));
		await db.remove();
	}
}

export async function webhookThroughputBench(): Promise<void> {
	heading(`Webhook throughput: ${EVENTS.toLocaleString('en-US')} events × ${ENDPOINTS} endpoints, receivers answering in ${ANSWER_MS} ms`);
	const rows: string[][] = [];
	for (const variant of variantsAsked()) rows.push(await oneSetup(variant));
	console.log(
		table(
			[
				'set-up',
				'deliveries',
				'deliveries/s (first PATCH → last delivery)',
				'first PATCH → last delivery',
				'writes took',
				'server CPU per delivery (writes included)',
				'most requests at the receivers at once',
				'delivered per instance (/metrics)',
				'receivers: requests/distinct event ids',
				'deliveries API: delivered after 1 attempt/distinct events',
				'exactly once',
				'event → receiver p50',
				'all due at once: server / baseline deliveries/s',
				'CPU per delivery: server / baseline',
				'exactly once (both)',
			],
			rows,
		),
	);
}
