/**
 * The completion report (SPEC §17) on 1,000,000 enrollments in one organization, SQLite and
 * PostgreSQL: GET /api/v1/reports/course_completion as JSON, as CSV, and for one course; p50 as
 * a client sees it (one request at a time, keep-alive). Target (issue 25): ≤ 200 ms.
 *
 * The data is the worst case for what the report cannot take from counters: every active
 * enrollment (a quarter) has a deadline, half of them past (125,000 overdue), and every completed
 * one (a quarter) a certificate expiring somewhere from a year ago to a year ahead (about half
 * expired, 1 in 24 within 30 days).
 */
import { Client } from 'pg';
import sqlite3 from 'sqlite3';

import { COURSES, courseId, loadPostgres, loadSqlite } from './bulk-load';
import { fmt, heading, lmsCli, median, settings, startLms, table, tempPostgres, tempSqlite } from './lib';

const ENROLLMENTS = Number(process.env.BENCH_REPORT_ENROLLMENTS ?? 1_000_000);
/** Coprime with the 20 courses, so (student, course) pairs stay unique up to 1,000,020 enrollments. */
const USERS = Number(process.env.BENCH_REPORT_USERS ?? 50_001);
const RUNS = settings.runs;
const REQUESTS_PER_RUN = 5;
const LIMIT_MS = 200;

const PROBES: Array<{ name: string; path: string; accept?: string }> = [
	{ name: `report, JSON (${COURSES} courses)`, path: '/api/v1/reports/course_completion' },
	{ name: 'report, CSV', path: '/api/v1/reports/course_completion', accept: 'text/csv' },
	{ name: 'report, one course', path: `/api/v1/reports/course_completion?course_id=${courseId(7)}` },
];

async function prepare(databaseUrl: string): Promise<{ organizationId: string; key: string }> {
	const env = { DATABASE_URL: databaseUrl };
	await lmsCli(['migrate'], env);
	const org = JSON.parse(await lmsCli(['orgs', 'create', '--name', 'Bench Corp', '--slug', 'bench', '--plan', 'enterprise', '--json'], env)) as { id: string };
	const key = JSON.parse(await lmsCli(['keys', 'create', '--org', 'bench', '--label', 'bench', '--scopes', 'read:enrollments', '--json'], env)) as { key: string };
	return { organizationId: org.id, key: key.key };
}

/** Deadlines and certificates, told as history (no sweep fires at start). */
async function sqliteDeadlinesAndCertificates(file: string): Promise<void> {
	const db = await new Promise<sqlite3.Database>((resolve, reject) => {
		const handle = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(handle)));
	});
	const run = (sql: string) => new Promise<void>((resolve, reject) => db.run(sql, (err) => (err ? reject(err) : resolve())));
	const ts = (days: string) => `strftime('%Y-%m-%d %H:%M:%f', 'now', (${days}) || ' days') || ' +00:00'`;
	try {
		const started = Date.now();
		await run('BEGIN');
		await run(`UPDATE enrollments SET due_at = ${ts('(abs(random()) % 120) - 60')} WHERE status = 'active'`);
		await run(`UPDATE enrollments SET overdue_notified_at = due_at WHERE status = 'active' AND due_at <= ${ts('0')}`);
		await run(`INSERT INTO certificates (id, organization_id, student_id, course_id, enrollment_id, issued_at, expires_at, verification_code, created_at, updated_at)
			SELECT 'cert_' || substr(id, 5), organization_id, student_id, course_id, id, completed_at, ${ts('(abs(random()) % 730) - 365')},
			       substr(id, 5), completed_at, completed_at FROM enrollments WHERE status = 'completed'`);
		await run('COMMIT');
		await run('ANALYZE');
		console.log(`  deadlines and certificates in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	} finally {
		await new Promise((resolve) => db.close(resolve));
	}
}

async function postgresDeadlinesAndCertificates(databaseUrl: string): Promise<void> {
	const client = new Client({ connectionString: databaseUrl });
	await client.connect();
	try {
		const started = Date.now();
		await client.query(`UPDATE enrollments SET due_at = now() + (random() * 120 - 60) * interval '1 day' WHERE status = 'active'`);
		await client.query(`UPDATE enrollments SET overdue_notified_at = due_at WHERE status = 'active' AND due_at <= now()`);
		await client.query(`INSERT INTO certificates (id, organization_id, student_id, course_id, enrollment_id, issued_at, expires_at, verification_code, created_at, updated_at)
			SELECT 'cert_' || substr(id, 5), organization_id, student_id, course_id, id, completed_at, now() + (random() * 730 - 365) * interval '1 day',
			       substr(id, 5), completed_at, completed_at FROM enrollments WHERE status = 'completed'`);
		await client.query('VACUUM ANALYZE');
		console.log(`  deadlines and certificates, VACUUM ANALYZE in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	} finally {
		await client.end();
	}
}

async function timeRequest(url: string, key: string, accept = 'application/json'): Promise<number> {
	const started = performance.now();
	const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept } });
	const body = await res.text();
	const elapsed = performance.now() - started;
	if (res.status !== 200 || body.length < 50) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 300)}`);
	return elapsed;
}

async function serveAndMeasure(databaseUrl: string, key: string): Promise<Map<string, number>> {
	const server = await startLms({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' });
	try {
		const sample = await fetch(`${server.baseUrl}${PROBES[0].path}`, { headers: { authorization: `Bearer ${key}` } });
		const rows = ((await sample.json()) as { data: Array<{ enrolled: number; overdue: number; certificates: { expired: number } }> }).data;
		const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((n, r) => n + f(r), 0).toLocaleString('en-US');
		console.log(`  report: ${rows.length} courses, ${sum((r) => r.enrolled)} enrolled, ${sum((r) => r.overdue)} overdue, ${sum((r) => r.certificates.expired)} certificates expired`);
		const results = new Map<string, number>();
		for (const probe of PROBES) {
			for (let i = 0; i < 2; i++) await timeRequest(server.baseUrl + probe.path, key, probe.accept); // warm caches
			const p50s: number[] = [];
			for (let r = 0; r < RUNS; r++) {
				const times: number[] = [];
				for (let i = 0; i < REQUESTS_PER_RUN; i++) times.push(await timeRequest(server.baseUrl + probe.path, key, probe.accept));
				p50s.push(median(times));
			}
			results.set(probe.name, median(p50s));
		}
		return results;
	} finally {
		await server.stop();
	}
}

async function sqliteRun(): Promise<Map<string, number>> {
	const db = tempSqlite();
	try {
		const { organizationId, key } = await prepare(db.databaseUrl);
		await loadSqlite(db.file, { organizationId, users: USERS, enrollments: ENROLLMENTS });
		await sqliteDeadlinesAndCertificates(db.file);
		return await serveAndMeasure(db.databaseUrl, key);
	} finally {
		await db.remove();
	}
}

async function postgresRun(): Promise<Map<string, number>> {
	const db = await tempPostgres();
	try {
		const { organizationId, key } = await prepare(db.databaseUrl);
		await loadPostgres(db.databaseUrl, { organizationId, users: USERS, enrollments: ENROLLMENTS });
		await postgresDeadlinesAndCertificates(db.databaseUrl);
		return await serveAndMeasure(db.databaseUrl, key);
	} finally {
		await db.remove();
	}
}

export async function reportBench(): Promise<void> {
	heading(`Completion report: ${ENROLLMENTS.toLocaleString('en-US')} enrollments in one organization`);
	console.log(`p50 of ${REQUESTS_PER_RUN} sequential requests, median of ${RUNS} runs\n`);
	const only = process.env.BENCH_REPORT_DIALECT?.toLowerCase();
	const results: Array<[string, Map<string, number>]> = [];
	for (const [dialect, run] of [['SQLite', sqliteRun], ['PostgreSQL', postgresRun]] as const) {
		if (only && !dialect.toLowerCase().startsWith(only)) continue;
		console.log(`${dialect}:`);
		results.push([dialect, await run()]);
	}
	const rows = PROBES.map((probe) => [
		probe.name,
		...results.flatMap(([, values]) => {
			const value = values.get(probe.name)!;
			return [fmt.ms(value), `≤ ${LIMIT_MS} ms: **${value <= LIMIT_MS ? 'met' : 'missed'}**`];
		}),
	]);
	console.log('');
	console.log(table(['request', ...results.flatMap(([d]) => [`${d} p50 ms`, `${d} target`])], rows));
}
