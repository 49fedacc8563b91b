/**
 * Webhook throughput (issue 40): 10,000 events × 3 endpoints (30,000 deliveries) to receivers
 * on 127.0.0.1 that answer 200 after 50 ms, on SQLite and on PostgreSQL (and there also two
 * `lms-server start` on one database, docs/production.md: migrate once, `start --no-migrate` on
 * each). Judged on the median of BENCH_RUNS (5) paired rounds.
 *
 * 1. Writing (once per database), the job: 10,000 people enrolled by the n8n bulk job's
 *    requests (SPEC §18: 100 `POST /api/v1/enrollments/batch` of 100 items, one after another,
 *    each item its own transaction with its `enrollment.created` and three delivery rows), paced
 *    so that the events come at the target's rate (500 deliveries a second: a batch of 100 every
 *    600 ms, the per-IP limit's floor of about a minute that issue 26 set the job; a batch that
 *    takes longer is followed at once; BENCH_WEBHOOK_WRITE_RATE sets another rate, 0 = unpaced),
 *    while one instance delivers them. Shown: deliveries a second from the first request to the
 *    last delivery (a lower bound: the request is sent before its commits), how long the writes
 *    took, and commit → receiver p50 and p95 (the event's created_at, just before its commit, to
 *    its arrival). Checked at the receivers (10,000 requests, 10,000 distinct `LMS-Event-Id`s
 *    each) and in the deliveries API (10,000 rows per endpoint, each delivered after one attempt).
 * 2. Paired rounds: every delivery is made due again in one UPDATE and sent by the server (one
 *    instance; on PostgreSQL also two), then by the hand-written baseline
 *    (bench/webhook-baseline.ts) from the same database to the same receivers; the order of the
 *    legs alternates from round to round. A leg starts its process(es), makes the rows due, and
 *    ends at the last delivery's arrival; server CPU per delivery is the process CPU time
 *    (/proc, every instance summed) from the rows made due to the database recording the last
 *    outcome, ÷ deliveries. The server's legs then make every delivery due again for the same
 *    processes: their CPU per delivery warm, as a server that has run for a while spends it (a
 *    fresh process's first passes compile and size its heap, once per process: two fresh
 *    processes pay it twice). Two instances are judged against one on the warm pass: the work
 *    divides; warming up is per process, not per delivery. Each pass is checked none lost or
 *    doubled: every receiver gets 10,000 more requests with 10,000 distinct event ids, and the
 *    database has every delivery delivered after one attempt.
 *
 * 3. One change per request (after the rounds): BENCH_WEBHOOK_CHANGES (3,000) events written as
 *    PATCH progress, 20 enrollments changed one PATCH after another, 20 at a time, paced at the
 *    same rate, delivered by one instance; shown as in 1. Each change is a request and a
 *    transaction of its own, so this shows what the server's writes cost beside its deliveries.
 *
 * BENCH_WEBHOOK_EVENTS (10,000), BENCH_RUNS (5), BENCH_WEBHOOK_THROUGHPUT (sqlite,postgres,two-instances),
 * BENCH_WEBHOOK_WRITE_RATE (deliveries a second the writes ask for: 500), BENCH_WEBHOOK_CHANGES (3,000; 0: none).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Client } from 'pg';
import sqlite3 from 'sqlite3';

import { activeStudents, loadPostgres, loadSqlite } from './bulk-load';
import { heading, lmsCli, median, settings, startLms, table, tempPostgres, tempSqlite, type ChildServer } from './lib';
import { api, newEnrollments } from './webhooks';
import { startReceiver, type Receiver } from '../test/helpers/receiver';
// The worker's per-organization cap: the ceiling the receivers can see.
import { PER_ORGANIZATION } from '../server/src/webhooks/caps';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const RUNS = settings.runs;
const ENDPOINTS = 3;
const CHAINS = 20;
/** Items per batch request, as the n8n node sends them (SPEC §18). */
const BATCH = 100;
const CHANGES = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 3_000);
const ANSWER_MS = 50;
const RATE_TARGET = 500;
const RATIO_TARGET = 0.6;
const CPU_TARGET_MS = 1;
const LATENCY_TARGET_MS = 200;
/** Deliveries a second the writing phase's changes ask for (0: unpaced). */
const WRITE_RATE = Number(process.env.BENCH_WEBHOOK_WRITE_RATE ?? RATE_TARGET);
const BASELINE_JS = join(__dirname, 'webhook-baseline.js');
const WAIT_MS = 30 * 60_000;

type Variant = 'sqlite' | 'postgres' | 'two-instances';
const VARIANTS: Variant[] = ['sqlite', 'postgres', 'two-instances'];
type Leg = 'server' | 'two' | 'baseline';

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

/** The bench's own connection to the database, beside the server's: counts and the UPDATE that makes every delivery due again. */
async function openSql(databaseUrl: string): Promise<{ query(sql: string): Promise<Array<Record<string, unknown>>>; close(): Promise<void> }> {
	if (databaseUrl.startsWith('sqlite:')) {
		const db = new sqlite3.Database(databaseUrl.slice('sqlite:'.length));
		db.configure('busyTimeout', 10_000);
		return {
			query: (sql) => new Promise((resolve, reject) => db.all(sql, (err, rows) => (err ? reject(err) : resolve(rows as Array<Record<string, unknown>>)))),
			close: () => new Promise((resolve) => db.close(() => resolve())),
		};
	}
	const client = new Client({ connectionString: databaseUrl });
	await client.connect();
	return { query: async (sql) => (await client.query(sql)).rows as Array<Record<string, unknown>>, close: () => client.end() };
}

type Sql = Awaited<ReturnType<typeof openSql>>;

/** Every delivery due again now, as never attempted, in one UPDATE. */
async function dueAgain(sql: Sql, sqlite: boolean): Promise<void> {
	await sql.query(
		`UPDATE webhook_deliveries SET status = 'pending', attempts = 0, delivered_at = NULL, lease_until = NULL, lease_token = NULL, next_attempt_at = ${
			sqlite ? "'2000-01-01 00:00:00.000 +00:00'" : "'2000-01-01T00:00:00Z'"
		}`,
	);
}

/** Deliveries recorded delivered after exactly one attempt. */
async function deliveredOnce(sql: Sql): Promise<number> {
	return Number((await sql.query("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'delivered' AND attempts = 1"))[0].n);
}

/** Waits until the database has `deliveries` delivered after one attempt: only then is no attempt left to send. */
async function recorded(sql: Sql, deliveries: number): Promise<void> {
	const deadline = Date.now() + 120_000;
	while ((await deliveredOnce(sql)) < deliveries) {
		if (Date.now() > deadline) throw new Error(`deliveries not all recorded delivered after one attempt within 120 s of the last one arriving`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

/** Waits until every receiver has `count` requests; returns when the last of them arrived. */
async function arrived(receivers: Receiver[], count: number): Promise<number> {
	await Promise.all(receivers.map((r) => r.waitFor(count, WAIT_MS)));
	return Math.max(...receivers.map((r) => r.received[count - 1].at));
}

/** Whether every receiver has exactly `count` requests, `count` distinct event ids (asked once the database has every outcome). */
const exactlyOnce = (receivers: Receiver[], count: number) =>
	receivers.every((r) => r.received.length === count && new Set(r.received.map((x) => String(x.headers['lms-event-id']))).size === count);

/** What the deliveries API says of one endpoint: how many rows, delivered after one attempt, distinct events. */
async function ledger(baseUrl: string, key: string, endpointId: string) {
	let rows = 0;
	let once = 0;
	const events = new Set<string>();
	for (let page = 1; ; page++) {
		const body = await api(baseUrl, key, `/api/v1/webhook_endpoints/${endpointId}/deliveries?per_page=100&page=${page}`);
		for (const d of body.data as Array<{ event_id: string; status: string; attempts: number }>) {
			rows += 1;
			if (d.status === 'delivered' && d.attempts === 1) once += 1;
			events.add(d.event_id);
		}
		if (page * 100 >= body.pagination.total) break;
	}
	return { rows, once, distinct: events.size };
}

interface LegResult {
	rate: number;
	cpuMs: number;
	/** The server's legs: CPU per delivery of a second pass on the same processes, warm. */
	warmCpuMs?: number;
	exact: boolean;
}

interface Setup {
	label: string;
	databaseUrl: string;
	sqlite: boolean;
	env: Record<string, string>;
	key: string;
	receivers: Receiver[];
	sql: Sql;
	events: number;
}

/** Starts `count` instances on the set-up's database (migrated already). */
async function startServers(setup: Setup, count: number): Promise<ChildServer[]> {
	return Promise.all(Array.from({ length: count }, () => startLms(setup.env, ['--no-migrate'])));
}

/** One leg of a round: every delivery due again, sent by `count` instances of the server. */
async function serverLeg(setup: Setup, count: number): Promise<LegResult> {
	const servers = await startServers(setup, count);
	try {
		const fresh = await serverPass(setup, servers);
		// The same processes again: a fresh process spends its first thousands of deliveries warming
		// up (0.54 → 0.41 ms per delivery from the first 15,000 to the next, 11-28), once per process.
		const warm = await serverPass(setup, servers);
		return { ...fresh, warmCpuMs: warm.cpuMs, exact: fresh.exact && warm.exact };
	} finally {
		await Promise.all(servers.map((s) => s.stop()));
	}
}

/** Every delivery due again, sent by `servers`: from the rows made due to the last arrival, CPU until the last outcome is recorded. */
async function serverPass(setup: Setup, servers: ChildServer[]): Promise<LegResult> {
	const deliveries = setup.events * ENDPOINTS;
	for (const r of setup.receivers) r.received.splice(0);
	const cpu = servers.map((s) => s.cpuSeconds());
	const started = Date.now();
	await dueAgain(setup.sql, setup.sqlite);
	const last = await arrived(setup.receivers, setup.events);
	await recorded(setup.sql, deliveries);
	const cpuSeconds = servers.reduce((sum, s, i) => sum + s.cpuSeconds() - cpu[i], 0);
	return { rate: deliveries / ((last - started) / 1000), cpuMs: (cpuSeconds * 1000) / deliveries, exact: exactlyOnce(setup.receivers, setup.events) };
}

/** One leg of a round: every delivery due again, sent by the hand-written baseline. */
async function baselineLeg(setup: Setup): Promise<LegResult> {
	const deliveries = setup.events * ENDPOINTS;
	for (const r of setup.receivers) r.received.splice(0);
	await dueAgain(setup.sql, setup.sqlite);
	const { stdout } = await promisify(execFile)(process.execPath, [BASELINE_JS], {
		env: { PATH: process.env.PATH ?? '', DATABASE_URL: setup.databaseUrl, BENCH_BASELINE_EXPECT: String(deliveries) },
		maxBuffer: 1 << 20,
	});
	const baseline = JSON.parse(stdout) as { deliveries: number; startedAt: number; cpuMs: number };
	const last = await arrived(setup.receivers, setup.events);
	const exact = exactlyOnce(setup.receivers, setup.events) && (await deliveredOnce(setup.sql)) === deliveries;
	return { rate: deliveries / ((last - baseline.startedAt) / 1000), cpuMs: baseline.cpuMs / deliveries, exact };
}

/** The people the bulk job enrolls: loaded students of the organization (bench/bulk-load.ts). */
async function loadStudents(setup: Setup, organizationId: string): Promise<string[]> {
	const { students, users } = activeStudents(setup.events);
	const plan = { organizationId, users, enrollments: 0 };
	if (setup.sqlite) await loadSqlite(setup.databaseUrl.slice('sqlite:'.length), plan);
	else await loadPostgres(setup.databaseUrl, plan);
	return students;
}

/** Waits until `at` (epoch ms), if it is still to come. */
const until = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

/** Part 1: the bulk job's batches, paced, one after another; every item must answer 201. */
async function enrollInBatches(baseUrl: string, key: string, students: string[]): Promise<void> {
	const courses = (await api(baseUrl, key, '/api/v1/courses?per_page=1')).data as Array<{ id: string }>;
	const batchMs = WRITE_RATE > 0 ? (1000 * BATCH * ENDPOINTS) / WRITE_RATE : 0;
	const started = Date.now();
	for (let from = 0; from < students.length; from += BATCH) {
		await until(started + (from / BATCH) * batchMs);
		const items = students.slice(from, from + BATCH).map((student_id) => ({ student_id, course_id: courses[0].id }));
		const body = await api(baseUrl, key, '/api/v1/enrollments/batch', { method: 'POST', body: { items } });
		const failed = (body.data as Array<{ status: number; body: unknown }>).find((item) => item.status !== 201);
		if (failed) throw new Error(`batch ${from}: an item answered ${failed.status} ${JSON.stringify(failed.body).slice(0, 300)}`);
	}
}

/** Part 3: `events` changes of `enrollments` (CHAINS of them) changed one PATCH after another, all at a time, paced. */
async function changeOneByOne(baseUrl: string, key: string, enrollments: string[], events: number): Promise<void> {
	const steps = events / CHAINS;
	// The k-th change (k = step × CHAINS + chain) is sent no earlier than k events' worth of the pace after the start.
	const eventMs = WRITE_RATE > 0 ? (1000 * ENDPOINTS) / WRITE_RATE : 0;
	const started = Date.now();
	await Promise.all(
		enrollments.map(async (id, chain) => {
			// A new enrollment is at 0 %: 11, 10, 11, … each PATCH a change, none completes it.
			for (let step = 1; step <= steps; step++) {
				await until(started + ((step - 1) * CHAINS + chain) * eventMs);
				await api(baseUrl, key, `/api/v1/enrollments/${id}`, { method: 'PATCH', body: { progress_percent: 10 + (step % 2) } });
			}
		}),
	);
}

/**
 * Writes `events` events through the API with `write` while one instance delivers them; checks
 * each reached each receiver once, and that each endpoint's deliveries API has `ledger` rows, all
 * delivered after one attempt.
 */
async function writing(setup: Setup, server: ChildServer, endpointIds: string[], concurrency: { max: number }, events: number, ledgerRows: number, write: () => Promise<void>) {
	for (const r of setup.receivers) r.received.splice(0);
	concurrency.max = 0;
	const deliveredBefore = await deliveredOnce(setup.sql);
	const cpu = server.cpuSeconds();
	const started = Date.now();
	await write();
	const written = Date.now() - started;
	const last = await arrived(setup.receivers, events);
	const deliveries = events * ENDPOINTS;
	await recorded(setup.sql, deliveredBefore + deliveries);
	const exact = exactlyOnce(setup.receivers, events);
	const cpuMs = ((server.cpuSeconds() - cpu) * 1000) / deliveries;
	const books = await Promise.all(endpointIds.map((id) => ledger(server.baseUrl, setup.key, id)));
	const latencies = setup.receivers.flatMap((r) => r.received.map((x) => x.at - Date.parse((JSON.parse(x.body) as { created_at: string }).created_at))).sort((a, b) => a - b);
	return {
		events,
		rate: deliveries / ((last - started) / 1000),
		written,
		cpuMs,
		latency: median(latencies),
		latencyP95: latencies[Math.floor(latencies.length * 0.95)],
		mostAtOnce: concurrency.max,
		exact: exact && books.every((b) => b.rows === ledgerRows && b.once === ledgerRows && b.distinct === ledgerRows),
	};
}

const perSecond = (v: number) => v.toFixed(0);
const spread = (values: number[], format: (v: number) => string) =>
	values.length > 1 ? `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})` : format(values[0]);

const met = (ok: boolean) => (ok ? 'met' : 'missed');

function writeRow(label: string, how: string, writes: Awaited<ReturnType<typeof writing>>): string[] {
	return [
		label,
		how,
		`${(writes.events * ENDPOINTS).toLocaleString('en-US')}`,
		WRITE_RATE > 0 ? `${WRITE_RATE}` : 'unpaced',
		`${perSecond(writes.rate)}`,
		`${(writes.written / 1000).toFixed(1)} s`,
		`${writes.cpuMs.toFixed(2)} ms`,
		`${writes.mostAtOnce} (ceiling ${PER_ORGANIZATION})`,
		`**${writes.latency.toFixed(0)} ms** ${met(writes.latency <= LATENCY_TARGET_MS)}`,
		`${writes.latencyP95.toFixed(0)} ms`,
		writes.exact ? 'none lost, none doubled' : 'MISSED',
	];
}

async function oneDatabase(sqlite: boolean, two: boolean): Promise<{ writes: string[][]; rounds: string[] }> {
	const db = sqlite ? tempSqlite() : await tempPostgres();
	const receivers: Receiver[] = [];
	let sql: Sql | undefined;
	const began = Date.now();
	try {
		const { databaseUrl } = db;
		await lmsCli(['migrate'], { DATABASE_URL: databaseUrl });
		const demo = JSON.parse(await lmsCli(['seed', '--demo', '--json'], { DATABASE_URL: databaseUrl })) as { organizations: Array<{ slug: string; id: string }> };
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
			WEBHOOK_POLL_MS: '100',
		};
		if (two) {
			// docs/production.md: the per-IP limit in Redis, one session secret, migrations run once above; the same for one instance and two.
			Object.assign(env, {
				REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
				RATE_LIMIT_REDIS_PREFIX: `lms:bench:${process.pid}:${Date.now()}:`,
				NODE_ENV: 'production',
				SESSION_SECRET: 'bench session secret, 32 characters or more',
			});
		}
		sql = await openSql(databaseUrl);
		const concurrency = { now: 0, max: 0 };
		for (let i = 0; i < ENDPOINTS; i++) receivers.push(await slowReceiver(concurrency));
		const setup: Setup = {
			label: sqlite ? 'SQLite' : 'PostgreSQL',
			databaseUrl,
			sqlite,
			env,
			key,
			receivers,
			sql,
			events: EVENTS,
		};
		const students = await loadStudents(setup, demo.organizations.find((o) => o.slug === 'acme')!.id);

		const endpointIds: string[] = [];
		const [server] = await startServers(setup, 1);
		let writes: Awaited<ReturnType<typeof writing>>;
		try {
			for (const receiver of receivers) {
				const body = { url: receiver.url, events: ['enrollment.created', 'enrollment.progressed'] };
				endpointIds.push((await api(server.baseUrl, key, '/api/v1/webhook_endpoints', { method: 'POST', body })).id);
			}
			writes = await writing(setup, server, endpointIds, concurrency, EVENTS, EVENTS, () => enrollInBatches(server.baseUrl, key, students));
		} finally {
			await server.stop();
		}
		console.log(`  ${setup.label}: written and delivered in ${((Date.now() - began) / 1000).toFixed(0)} s`);

		const legs: Leg[] = two ? ['server', 'two', 'baseline'] : ['server', 'baseline'];
		const results = new Map<Leg, LegResult[]>(legs.map((leg) => [leg, []]));
		for (let round = 0; round < RUNS; round++) {
			// Alternating order: a machine that slows down during the run weighs on both alike.
			for (const leg of round % 2 === 0 ? legs : [...legs].reverse()) {
				const result = leg === 'baseline' ? await baselineLeg(setup) : await serverLeg(setup, leg === 'two' ? 2 : 1);
				results.get(leg)!.push(result);
				const warm = result.warmCpuMs === undefined ? '' : ` (warm: ${result.warmCpuMs.toFixed(2)} ms)`;
				console.log(`  ${setup.label} round ${round + 1} ${leg}: ${result.rate.toFixed(0)}/s, ${result.cpuMs.toFixed(2)} ms CPU per delivery${warm}${result.exact ? '' : ', MISSED'}`);
			}
		}
		console.log(`  ${setup.label}: ${RUNS} rounds done ${((Date.now() - began) / 1000).toFixed(0)} s after the start`);

		// Part 3, on the rows of the rounds and more: one change per request.
		const changes = Math.ceil(CHANGES / CHAINS) * CHAINS;
		let changed: Awaited<ReturnType<typeof writing>> | undefined;
		if (changes > 0) {
			const [again] = await startServers(setup, 1);
			try {
				// The enrollments to change, whose enrollment.created reach the receivers before the changes start.
				for (const r of receivers) r.received.splice(0);
				const enrollments = await newEnrollments(again.baseUrl, key, CHAINS);
				if (enrollments.length < CHAINS) throw new Error(`only ${enrollments.length} free student–course pairs in the demo data`);
				await arrived(receivers, CHAINS);
				await recorded(setup.sql, (EVENTS + CHAINS) * ENDPOINTS);
				const rows = EVENTS + CHAINS + changes;
				changed = await writing(setup, again, endpointIds, concurrency, changes, rows, () => changeOneByOne(again.baseUrl, key, enrollments, changes));
			} finally {
				await again.stop();
			}
		}

		const of = (leg: Leg, pick: (r: LegResult) => number) => results.get(leg)!.map(pick);
		const ratios = results.get('server')!.map((s, i) => s.rate / results.get('baseline')![i].rate);
		const serverRate = median(of('server', (r) => r.rate));
		const serverCpu = median(of('server', (r) => r.cpuMs));
		const ratio = median(ratios);
		const exact = [...results.values()].every((rs) => rs.every((r) => r.exact));
		const warmCpu = (leg: Leg) => median(of(leg, (r) => r.warmCpuMs!));
		const twoCells = two
			? [
					spread(of('two', (r) => r.rate), perSecond),
					`${median(of('two', (r) => r.cpuMs)).toFixed(2)} ms (one: ${serverCpu.toFixed(2)})`,
					`**${warmCpu('two').toFixed(2)} ms** (one: ${warmCpu('server').toFixed(2)}) ${met(warmCpu('two') <= warmCpu('server'))}`,
				]
			: ['', '', ''];
		return {
			writes: [writeRow(setup.label, 'the bulk job: batches of 100', writes), ...(changed ? [writeRow(setup.label, 'one change per request', changed)] : [])],
			rounds: [
				setup.label,
				`${RUNS}`,
				`**${spread(of('server', (r) => r.rate), perSecond)}** ${met(serverRate >= RATE_TARGET)}`,
				spread(of('baseline', (r) => r.rate), perSecond),
				`**${ratio.toFixed(2)}×** ${met(ratio >= RATIO_TARGET)}`,
				`**${serverCpu.toFixed(2)} ms** ${met(serverCpu <= CPU_TARGET_MS)} (warm: ${warmCpu('server').toFixed(2)})`,
				`${median(of('baseline', (r) => r.cpuMs)).toFixed(2)} ms`,
				...twoCells,
				exact ? 'none lost, none doubled' : 'MISSED',
			],
		};
	} finally {
		await Promise.all(receivers.map((r) => r.close()));
		await sql?.close();
		await db.remove();
	}
}

export async function webhookThroughputBench(): Promise<void> {
	heading(`Webhook throughput: ${EVENTS.toLocaleString('en-US')} events × ${ENDPOINTS} endpoints, receivers answering in ${ANSWER_MS} ms, ${RUNS} paired rounds`);
	const asked = variantsAsked();
	const databases: Array<{ sqlite: boolean; two: boolean }> = [];
	if (asked.includes('sqlite')) databases.push({ sqlite: true, two: false });
	if (asked.includes('postgres') || asked.includes('two-instances')) databases.push({ sqlite: false, two: asked.includes('two-instances') });
	const writes: string[][] = [];
	const rounds: string[][] = [];
	for (const { sqlite, two } of databases) {
		const result = await oneDatabase(sqlite, two);
		writes.push(...result.writes);
		rounds.push(result.rounds);
	}
	console.log('\nWriting: the events through the API, paced, while one instance delivers them\n');
	console.log(
		table(
			[
				'database',
				'written as',
				'deliveries',
				'paced at (deliveries/s)',
				'deliveries/s (first request → last delivery)',
				'writes took',
				'server CPU per delivery (writes included)',
				'most at the receivers at once',
				`commit → receiver p50 (≤ ${LATENCY_TARGET_MS} ms)`,
				'p95',
				'exactly once',
			],
			writes,
		),
	);
	console.log(`\nAll due at once: median (min–max) of ${RUNS} paired rounds, the server's legs and the baseline's alternating\n`);
	console.log(
		table(
			[
				'database',
				'rounds',
				`server deliveries/s (≥ ${RATE_TARGET})`,
				'baseline deliveries/s',
				`server ÷ baseline (≥ ${RATIO_TARGET}×)`,
				`server CPU per delivery (≤ ${CPU_TARGET_MS} ms)`,
				'baseline CPU per delivery',
				'two instances: deliveries/s',
				'two instances: CPU per delivery, both summed',
				'the same, warm (≤ one instance warm)',
				'exactly once (every leg)',
			],
			rounds,
		),
	);
}
