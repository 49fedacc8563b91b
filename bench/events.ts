/**
 * The event feed (SPEC §11), on SQLite and on PostgreSQL:
 * 1. Reading: 100 events after a cursor, in one organization's feed of 1,000,000 events, as a
 *    client sees it (one request at a time, keep-alive). Target: p50 ≤ 5 ms.
 * 2. Writing: what the event adds to POST /enrollments. In each of BENCH_RUNS rounds: the p50
 *    of real POSTs (which write their event), and the p50 of the server's own write transaction
 *    (the enrollment insert) with and without recordEvent, alternating, in this process on the
 *    same database. Added = (with − without) / (POST − added), the median of the rounds'.
 *    Target: ≤ 10 % (issue 40).
 */
import { Client } from 'pg';
import sqlite3 from 'sqlite3';

import { connect, Course, Enrollment, User, type Database } from '../server/src/db';
import { writeTransaction } from '../server/src/db/write-transaction';
import { serializeEnrollment } from '../server/src/enrollments/serialize';
import { recordEvent } from '../server/src/events/record';
import { fmt, heading, lmsCli, median, settings, startLms, table, tempPostgres, tempSqlite } from './lib';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const READ_TARGET_MS = 5;
const WRITE_TARGET = 0.1;
const RUNS = settings.runs;
const REQUESTS_PER_RUN = 20;
const WRITES = Number(process.env.BENCH_EVENT_WRITES ?? 500);
const BATCH = 100_000;
/** 2024-01-01T00:00:00Z: the first event's created_at (old events are fine: retention is off for the run). */
const EPOCH_S = 1_704_067_200;
/** What a stored enrollment.* event's data looks like (≈ 300 bytes). */
const DATA = (i: string, dialect: 'sqlite' | 'postgres') =>
	dialect === 'sqlite'
		? `'{"id":"enr_' || printf('%016d', ${i}) || '","student_id":"usr_benchstudent0001","course_id":"crs_benchcourse00001","status":"active","progress_percent":' || (${i} % 100) || ',"enrolled_at":"2024-01-01T00:00:00.000Z","completed_at":null,"created_at":"2024-01-01T00:00:00.000Z","updated_at":"2024-01-01T00:00:00.000Z"}'`
		: `'{"id":"enr_' || lpad(${i}::text, 16, '0') || '","student_id":"usr_benchstudent0001","course_id":"crs_benchcourse00001","status":"active","progress_percent":' || (${i} % 100) || ',"enrolled_at":"2024-01-01T00:00:00.000Z","completed_at":null,"created_at":"2024-01-01T00:00:00.000Z","updated_at":"2024-01-01T00:00:00.000Z"}'`;
/** Types cycle so that one in eight events is an enrollment.completed. */
const TYPES = ['enrollment.created', 'enrollment.progressed', 'enrollment.progressed', 'enrollment.completed', 'certificate.issued', 'enrollment.progressed', 'user.created', 'enrollment.withdrawn'];
/** Ids as the server makes them: `evt_` + 16 hex (0: a transaction long finished) + 12 hex. */
const eventId = (n: number) => `evt_${'0'.repeat(16)}${n.toString(16).padStart(12, '0')}`;

async function loadSqliteEvents(file: string, organizationId: string): Promise<void> {
	const db = await new Promise<sqlite3.Database>((resolve, reject) => {
		const handle = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(handle)));
	});
	const run = (sql: string, params: unknown[] = []) => new Promise<void>((resolve, reject) => db.run(sql, params, (err) => (err ? reject(err) : resolve())));
	const started = Date.now();
	try {
		await run('PRAGMA journal_mode = WAL');
		for (let from = 1; from <= EVENTS; from += BATCH) {
			const to = Math.min(EVENTS, from + BATCH - 1);
			await run('BEGIN');
			await run(
				`WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i < ?)
				 INSERT INTO events (seq, id, organization_id, type, data, created_at)
				 SELECT i, 'evt_' || printf('%016x%012x', 0, i), ?, json_extract(?, '$[' || (i % 8) || ']'), ${DATA('i', 'sqlite')},
				        strftime('%Y-%m-%d %H:%M:%f', ${EPOCH_S} + i, 'unixepoch') || ' +00:00' FROM s`,
				[from, to, organizationId, JSON.stringify(TYPES)],
			);
			await run('COMMIT');
		}
		await run('ANALYZE');
	} finally {
		await new Promise((resolve) => db.close(resolve));
	}
	console.log(`  loaded ${EVENTS.toLocaleString('en-US')} events in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function loadPostgresEvents(databaseUrl: string, organizationId: string): Promise<void> {
	const client = new Client({ connectionString: databaseUrl });
	await client.connect();
	const started = Date.now();
	try {
		for (let from = 1; from <= EVENTS; from += BATCH) {
			const to = Math.min(EVENTS, from + BATCH - 1);
			await client.query(
				`INSERT INTO events (id, organization_id, type, data, created_at)
				 SELECT 'evt_' || lpad('0', 16, '0') || lpad(to_hex(i), 12, '0'), $1, ($4::text[])[i % 8 + 1], ${DATA('i', 'postgres')},
				        to_timestamp(${EPOCH_S} + i)
				 FROM generate_series($2::int, $3::int) AS i`,
				[organizationId, from, to, TYPES],
			);
		}
		await client.query('VACUUM ANALYZE events');
	} finally {
		await client.end();
	}
	console.log(`  loaded ${EVENTS.toLocaleString('en-US')} events in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function timeRequest(url: string, key: string, init: RequestInit = {}, expected = 200): Promise<number> {
	const started = performance.now();
	const res = await fetch(url, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) } });
	const body = await res.arrayBuffer();
	const elapsed = performance.now() - started;
	if (res.status !== expected) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${Buffer.from(body).toString().slice(0, 300)}`);
	return elapsed;
}

interface ReadProbe {
	name: string;
	path(run: number): string;
	check?(body: { data: unknown[]; has_more: boolean }): void;
}

function readProbes(): ReadProbe[] {
	// Each run reads after a different cursor, spread over the feed.
	const cursor = (run: number) => eventId(Math.floor(((run + 1) * EVENTS) / (RUNS + 2)));
	return [
		{ name: '100 events after a cursor', path: (run) => `/api/v1/events?after=${cursor(run)}&limit=100` },
		{ name: '100 enrollment.* events after a cursor', path: (run) => `/api/v1/events?after=${cursor(run)}&limit=100&type=enrollment.*` },
		{ name: '100 enrollment.completed after a cursor (1 in 8)', path: (run) => `/api/v1/events?after=${cursor(run)}&limit=100&type=enrollment.completed` },
		{ name: 'the oldest 100 (no cursor)', path: () => '/api/v1/events?limit=100' },
		{ name: 'the last page (after the newest but 10)', path: () => `/api/v1/events?after=${eventId(EVENTS - 10)}&limit=100` },
	];
}

async function measureReads(baseUrl: string, key: string): Promise<Map<string, number>> {
	const results = new Map<string, number>();
	for (const probe of readProbes()) {
		for (let i = 0; i < 3; i++) await timeRequest(baseUrl + probe.path(0), key);
		const runP50s: number[] = [];
		for (let run = 0; run < RUNS; run++) {
			const times: number[] = [];
			for (let i = 0; i < REQUESTS_PER_RUN; i++) times.push(await timeRequest(baseUrl + probe.path(run), key));
			runP50s.push(median(times));
		}
		results.set(probe.name, median(runP50s));
	}
	return results;
}

interface WriteResult {
	postP50: number;
	withEvent: number;
	withoutEvent: number;
	/** What the event adds to a POST, the median of the rounds' (with − without) / (POST − added). */
	added: number;
}

/** Students and one published course to enroll them in, written directly (history, no events). */
async function writeFixtures(organizationId: string, count: number): Promise<{ students: string[]; courses: string[] }> {
	const courses = await Course.bulkCreate(
		Array.from({ length: 3 }, (_, n) => ({ organizationId, title: `Write bench ${n}`, description: '', status: 'published' as const, publishedAt: new Date() })),
	);
	const users = await User.bulkCreate(
		Array.from({ length: count }, (_, n) => ({
			organizationId,
			name: `Writer ${n}`,
			email: `writer${n}.${Date.now()}@bench.example`,
			emailLower: `writer${n}.${Date.now()}@bench.example`,
			role: 'student' as const,
			passwordHash: null,
		})),
	);
	return { students: users.map((u) => u.id), courses: courses.map((c) => c.id) };
}

/**
 * RUNS rounds, each of WRITES / RUNS POSTs then as many write transactions without and with the
 * event, alternating; each round's ratio from its own p50s, and the median of the rounds'.
 */
async function measureWrites(database: Database, baseUrl: string, key: string, organizationId: string): Promise<WriteResult> {
	const { students, courses } = await writeFixtures(organizationId, WRITES);
	const perRound = Math.floor(WRITES / RUNS);
	const rounds: WriteResult[] = [];
	for (let round = 0; round < RUNS; round++) {
		const group = students.slice(round * perRound, (round + 1) * perRound);
		// POST /enrollments through the server (each writes its enrollment.created event).
		const posts: number[] = [];
		for (const [i, student] of group.entries()) {
			const body = JSON.stringify({ student_id: student, course_id: courses[0] });
			const ms = await timeRequest(`${baseUrl}/api/v1/enrollments`, key, { method: 'POST', body, headers: { 'content-type': 'application/json' } }, 201);
			if (round > 0 || i > 0) posts.push(ms); // the very first one warms up
		}
		// The POST's write transaction, without and with its event, alternating.
		const withEvent: number[] = [];
		const withoutEvent: number[] = [];
		for (const [i, studentId] of group.entries()) {
			for (const [courseId, writeEvent, into] of [
				[courses[1], false, withoutEvent],
				[courses[2], true, withEvent],
			] as const) {
				const started = performance.now();
				await writeTransaction(database, async (transaction) => {
					const enrollment = await Enrollment.create(
						{ organizationId, studentId, courseId, status: 'active', progressPercent: 0, enrolledAt: new Date(), completedAt: null },
						{ transaction },
					);
					if (writeEvent) await recordEvent(transaction, { organizationId, type: 'enrollment.created', object: serializeEnrollment(enrollment) });
				});
				if (round > 0 || i > 0) into.push(performance.now() - started);
			}
		}
		const postP50 = median(posts);
		const added = median(withEvent) - median(withoutEvent);
		rounds.push({ postP50, withEvent: median(withEvent), withoutEvent: median(withoutEvent), added: added / (postP50 - added) });
	}
	const of = (pick: (r: WriteResult) => number) => median(rounds.map(pick));
	return { postP50: of((r) => r.postP50), withEvent: of((r) => r.withEvent), withoutEvent: of((r) => r.withoutEvent), added: of((r) => r.added) };
}

async function prepare(databaseUrl: string): Promise<{ organizationId: string; key: string }> {
	const env = { DATABASE_URL: databaseUrl };
	await lmsCli(['migrate'], env);
	const org = JSON.parse(await lmsCli(['orgs', 'create', '--name', 'Bench Corp', '--slug', 'bench', '--plan', 'enterprise', '--json'], env)) as { id: string };
	const key = JSON.parse(
		await lmsCli(['keys', 'create', '--org', 'bench', '--label', 'bench', '--scopes', 'read:users,read:enrollments,write:enrollments', '--json'], env),
	) as { key: string };
	return { organizationId: org.id, key: key.key };
}

async function runOn(dialect: 'sqlite' | 'postgres'): Promise<{ reads: Map<string, number>; writes: WriteResult }> {
	const sqlite = dialect === 'sqlite' ? tempSqlite() : undefined;
	const db = sqlite ?? (await tempPostgres());
	try {
		const { organizationId, key } = await prepare(db.databaseUrl);
		if (sqlite) await loadSqliteEvents(sqlite.file, organizationId);
		else await loadPostgresEvents(db.databaseUrl, organizationId);
		// Retention stays out of the way: the loaded events are older than 30 days.
		const server = await startLms({ DATABASE_URL: db.databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn', EVENT_RETENTION_DAYS: '36500' });
		const opened = await connect({ databaseUrl: db.databaseUrl, poolMax: 2 });
		try {
			const reads = await measureReads(server.baseUrl, key);
			const writes = await measureWrites(opened, server.baseUrl, key, organizationId);
			return { reads, writes };
		} finally {
			await opened.close();
			await server.stop();
		}
	} finally {
		await db.remove();
	}
}

export async function eventsBench(): Promise<void> {
	heading(`Event feed: ${EVENTS.toLocaleString('en-US')} events in one organization`);
	console.log(`reads: p50 of ${REQUESTS_PER_RUN} sequential requests, median of ${RUNS} runs (each run after a different cursor); target p50 ≤ ${READ_TARGET_MS} ms`);
	console.log(
		`writes: ${RUNS} rounds of ${Math.floor(WRITES / RUNS)} POST /enrollments then as many write transactions without and with the event, alternating; median of the rounds' ratios; target ≤ ${WRITE_TARGET * 100} % added\n`,
	);
	const only = process.env.BENCH_EVENTS_DIALECT?.toLowerCase();
	const results: Array<[string, Awaited<ReturnType<typeof runOn>>]> = [];
	for (const [name, dialect] of [['SQLite', 'sqlite'], ['PostgreSQL', 'postgres']] as const) {
		if (only && !name.toLowerCase().startsWith(only)) continue;
		console.log(`${name}:`);
		results.push([name, await runOn(dialect)]);
	}
	console.log('');
	const readRows = readProbes().map((probe) => [
		probe.name,
		...results.flatMap(([, r]) => {
			const v = r.reads.get(probe.name)!;
			return [fmt.ms(v), v <= READ_TARGET_MS ? 'met' : 'missed'];
		}),
	]);
	console.log(table(['GET /api/v1/events', ...results.flatMap(([d]) => [`${d} p50 ms`, `≤ ${READ_TARGET_MS} ms`])], readRows));
	console.log('');
	const writeRows = results.map(([d, { writes }]) => {
		const ratio = writes.added;
		return [
			d,
			fmt.ms(writes.postP50),
			fmt.ms(writes.withoutEvent),
			fmt.ms(writes.withEvent),
			`**${(ratio * 100).toFixed(1)} %** ${ratio <= WRITE_TARGET ? 'met' : 'missed'}`,
		];
	});
	console.log(table(['database', 'POST /enrollments p50 ms', 'write tx without event p50 ms', 'with event p50 ms', `added to a POST (≤ ${WRITE_TARGET * 100} %)`], writeRows));
}
