/**
 * Deadlines passing at once (SPEC §17, issue 25): 100,000 active enrollments of one organization
 * are due within the same wall-clock minute. The server as shipped (its own sweep every
 * OVERDUE_SWEEP_MS, default 15 s) must record 100,000 `enrollment.overdue` events, each once, each
 * within 2 minutes of its deadline, while the API's p50 stays within 2× its idle p50.
 *
 * - API p50: `GET /api/v1/courses?per_page=10`, one request at a time (performance.now(), not
 *   autocannon's whole milliseconds), idle = from warm-up to the first deadline, busy = from the
 *   first deadline until the last event is recorded.
 * - "Within 2 minutes": every second the bench reads the oldest deadline still owed its event
 *   (the sweep's partial index); its age, at its largest, is the worst lag any enrollment saw.
 *   (An event's created_at is its sweep pass's start, so it cannot tell when it was committed.)
 * - The sweep's own rate: the events of the type are counted every second too (the feed's
 *   organization/type index); recorded events ÷ the seconds in which any were recorded, so the
 *   seconds it idles between passes do not dilute it. It tells a slow sweep from a loaded machine.
 * - "Each once": afterwards, events of the type = distinct enrollments in them = 100,000, and none
 *   still owed.
 */
import { Client } from 'pg';
import sqlite3 from 'sqlite3';

import { loadPostgres, loadSqlite } from './bulk-load';
import { apiSampler, fmt, heading, lmsCli, median, sleep, startLms, table, tempPostgres, tempSqlite } from './lib';

const DEADLINES = Number(process.env.BENCH_OVERDUE_DEADLINES ?? 100_000);
/** Enough students, coprime with the 20 courses, so that (student, course) pairs stay unique (bulk-load.ts). */
const USERS = (() => {
	let n = Math.ceil(DEADLINES / 20);
	while (n % 2 === 0 || n % 5 === 0) n++;
	return n;
})();
const PATH = '/api/v1/courses?per_page=10';
const LAG_LIMIT_S = 120;
const RATIO_LIMIT = 2;
/** Seconds of idle measurement at least before the minute starts. */
const LEAD_S = 40;
/** Give up this long after the last deadline. */
const GIVE_UP_S = 300;

/** The few statements the bench runs against the database itself, per dialect. */
interface Probe {
	/** Every enrollment active and due at `firstDeadlineMs` + up to 59.999 s. */
	setDeadlines(firstDeadlineMs: number): Promise<void>;
	/** The oldest deadline passed and still owed its event (ms since epoch), or null. */
	oldestOwed(nowMs: number): Promise<number | null>;
	/** Events of the type recorded so far for the organization. */
	recorded(organizationId: string): Promise<number>;
	/** Events of the type, distinct enrollments in them, enrollments still owed. */
	tally(): Promise<{ events: number; distinct: number; owed: number }>;
	close(): Promise<void>;
}

async function sqliteProbe(file: string): Promise<Probe> {
	const db = await new Promise<sqlite3.Database>((resolve, reject) => {
		const handle = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(handle)));
	});
	const run = (sql: string, params: unknown[] = []) => new Promise<void>((resolve, reject) => db.run(sql, params, (err) => (err ? reject(err) : resolve())));
	const get = <R>(sql: string, params: unknown[] = []) =>
		new Promise<R>((resolve, reject) => db.get(sql, params, (err, row) => (err ? reject(err) : resolve(row as R))));
	await run('PRAGMA busy_timeout = 10000');
	const stored = (ms: string) => `strftime('%Y-%m-%d %H:%M:%f', (${ms}) / 1000.0, 'unixepoch') || ' +00:00'`;
	return {
		setDeadlines: (first) =>
			run(`UPDATE enrollments SET status = 'active', completed_at = NULL, progress_percent = 40, due_at = ${stored(`? + abs(random()) % 60000`)}`, [first]),
		async oldestOwed(now) {
			const row = await get<{ due: number | null }>(
				`SELECT (julianday(min(due_at)) - 2440587.5) * 86400000.0 AS due FROM enrollments
				 WHERE status = 'active' AND due_at IS NOT NULL AND overdue_notified_at IS NULL AND due_at <= ${stored('?')}`,
				[now],
			);
			return row.due === null ? null : Math.round(row.due);
		},
		recorded: (organizationId) =>
			get<{ n: number }>("SELECT count(*) AS n FROM events WHERE organization_id = ? AND type = 'enrollment.overdue'", [organizationId]).then((r) => r.n),
		tally: () =>
			get(`SELECT (SELECT count(*) FROM events WHERE type = 'enrollment.overdue') AS events,
			            (SELECT count(DISTINCT json_extract(data, '$.id')) FROM events WHERE type = 'enrollment.overdue') AS distinct_ids,
			            (SELECT count(*) FROM enrollments WHERE status = 'active' AND due_at IS NOT NULL AND overdue_notified_at IS NULL) AS owed`).then(
				(r) => {
					const row = r as { events: number; distinct_ids: number; owed: number };
					return { events: row.events, distinct: row.distinct_ids, owed: row.owed };
				},
			),
		close: () => new Promise((resolve) => db.close(() => resolve())),
	};
}

async function postgresProbe(databaseUrl: string): Promise<Probe> {
	const client = new Client({ connectionString: databaseUrl });
	await client.connect();
	return {
		async setDeadlines(first) {
			await client.query(
				`UPDATE enrollments SET status = 'active', completed_at = NULL, progress_percent = 40,
				 due_at = to_timestamp(($1::bigint + floor(random() * 60000)) / 1000.0)`,
				[first],
			);
			await client.query('VACUUM ANALYZE enrollments');
		},
		async oldestOwed(now) {
			const { rows } = await client.query<{ due: string | null }>(
				`SELECT extract(epoch FROM min(due_at)) * 1000 AS due FROM enrollments
				 WHERE status = 'active' AND due_at IS NOT NULL AND overdue_notified_at IS NULL AND due_at <= to_timestamp($1 / 1000.0)`,
				[now],
			);
			return rows[0].due === null ? null : Math.round(Number(rows[0].due));
		},
		async recorded(organizationId) {
			const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE organization_id = $1 AND type = 'enrollment.overdue'", [organizationId]);
			return Number(rows[0].n);
		},
		async tally() {
			const { rows } = await client.query<{ events: string; distinct_ids: string; owed: string }>(
				`SELECT (SELECT count(*) FROM events WHERE type = 'enrollment.overdue') AS events,
				        (SELECT count(DISTINCT data::json->>'id') FROM events WHERE type = 'enrollment.overdue') AS distinct_ids,
				        (SELECT count(*) FROM enrollments WHERE status = 'active' AND due_at IS NOT NULL AND overdue_notified_at IS NULL) AS owed`,
			);
			return { events: Number(rows[0].events), distinct: Number(rows[0].distinct_ids), owed: Number(rows[0].owed) };
		},
		close: () => client.end(),
	};
}

async function measure(dialect: string, databaseUrl: string, load: (organizationId: string) => Promise<void>, openProbe: () => Promise<Probe>): Promise<Array<string | number>> {
	const env = { DATABASE_URL: databaseUrl };
	await lmsCli(['migrate'], env);
	const org = JSON.parse(await lmsCli(['orgs', 'create', '--name', 'Bench Corp', '--slug', 'bench', '--plan', 'enterprise', '--json'], env)) as { id: string };
	const key = (JSON.parse(await lmsCli(['keys', 'create', '--org', 'bench', '--label', 'bench', '--scopes', 'read:courses', '--json'], env)) as { key: string }).key;
	await load(org.id);
	const probe = await openProbe();
	try {
		// The minute: the first whole minute at least LEAD_S seconds after the deadlines are written.
		const firstDeadline = Math.ceil((Date.now() + LEAD_S * 1000 + 30_000) / 60_000) * 60_000;
		const started = Date.now();
		await probe.setDeadlines(firstDeadline);
		console.log(`  ${DEADLINES.toLocaleString('en-US')} deadlines set between ${new Date(firstDeadline).toISOString()} and +60 s in ${((Date.now() - started) / 1000).toFixed(1)} s`);
		if (Date.now() > firstDeadline - 15_000) throw new Error('setting the deadlines took too long to leave an idle measurement');
		const server = await startLms({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' });
		try {
			const url = server.baseUrl + PATH;
			for (let i = 0; i < 20; i++) await (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer(); // warm
			const sampler = apiSampler(url, key);
			let worstLagMs = 0;
			let settledAt: number | null = null;
			let lastRecorded = 0;
			const perSecond: number[] = [];
			while (Date.now() < firstDeadline + (60 + GIVE_UP_S) * 1000) {
				await sleep(1000);
				const now = Date.now();
				if (now < firstDeadline) continue;
				const oldest = await probe.oldestOwed(now);
				const recorded = await probe.recorded(org.id);
				perSecond.push(recorded - lastRecorded);
				lastRecorded = recorded;
				if (oldest !== null) worstLagMs = Math.max(worstLagMs, now - oldest);
				// Settled: the whole minute has passed and nothing is owed.
				if (oldest === null && now > firstDeadline + 60_000) {
					settledAt = now;
					break;
				}
			}
			const samples = await sampler.stop();
			const idle = samples.filter((s) => s.at < firstDeadline).map((s) => s.ms);
			const busy = samples.filter((s) => s.at >= firstDeadline && (settledAt === null || s.at <= settledAt)).map((s) => s.ms);
			const { events, distinct, owed } = await probe.tally();
			const ratio = median(busy) / median(idle);
			const busySeconds = perSecond.filter((n) => n > 0);
			const rate = busySeconds.length === 0 ? 0 : busySeconds.reduce((a, b) => a + b, 0) / busySeconds.length;
			const once = events === DEADLINES && distinct === DEADLINES && owed === 0;
			const inTime = settledAt !== null && worstLagMs <= LAG_LIMIT_S * 1000;
			console.log(
				`  ${events} events, ${distinct} distinct enrollments, ${owed} owed; settled ${settledAt === null ? 'never' : `${((settledAt - firstDeadline) / 1000).toFixed(0)} s after the first deadline`}; worst lag ${(worstLagMs / 1000).toFixed(1)} s; API ${idle.length} idle / ${busy.length} busy requests; sweep ${Math.round(rate)} events/s over the ${busySeconds.length} s it recorded, peak ${Math.max(0, ...perSecond)} in one second`,
			);
			return [
				dialect,
				`${events.toLocaleString('en-US')} / ${distinct.toLocaleString('en-US')}`,
				settledAt === null ? '—' : ((settledAt - firstDeadline) / 1000).toFixed(0),
				(worstLagMs / 1000).toFixed(1),
				Math.round(rate).toLocaleString('en-US'),
				`${fmt.ms(median(idle))} / ${fmt.ms(median(busy))}`,
				`**${fmt.ratio(ratio)}**`,
				once && inTime && ratio <= RATIO_LIMIT ? 'met' : `missed${once ? '' : ' (count)'}${inTime ? '' : ' (lag)'}${ratio <= RATIO_LIMIT ? '' : ' (API)'}`,
			];
		} finally {
			await server.stop();
		}
	} finally {
		await probe.close();
	}
}

export async function overdueBench(): Promise<void> {
	heading(`Deadlines passing at once: ${DEADLINES.toLocaleString('en-US')} enrollments due within one minute`);
	console.log(`the server's own sweep as shipped; API: GET ${PATH}, one request at a time\n`);
	const only = process.env.BENCH_OVERDUE_DIALECT?.toLowerCase();
	const rows: Array<Array<string | number>> = [];
	if (!only || only.startsWith('sqlite')) {
		console.log('SQLite:');
		const db = tempSqlite();
		try {
			const load = (organizationId: string) => loadSqlite(db.file, { organizationId, users: USERS, enrollments: DEADLINES });
			rows.push(await measure('SQLite', db.databaseUrl, load, () => sqliteProbe(db.file)));
		} finally {
			await db.remove();
		}
	}
	if (!only || only.startsWith('postgres')) {
		console.log('PostgreSQL:');
		const db = await tempPostgres();
		try {
			const load = (organizationId: string) => loadPostgres(db.databaseUrl, { organizationId, users: USERS, enrollments: DEADLINES });
			rows.push(await measure('PostgreSQL', db.databaseUrl, load, () => postgresProbe(db.databaseUrl)));
		} finally {
			await db.remove();
		}
	}
	console.log('');
	console.log(
		table(
			['database', 'events / distinct', 'all recorded (s after first deadline)', `worst lag s (≤ ${LAG_LIMIT_S})`, 'sweep events/s', 'API p50 idle / busy ms', `ratio (≤ ${RATIO_LIMIT}×)`, 'verdict'],
			rows,
		),
	);
}
