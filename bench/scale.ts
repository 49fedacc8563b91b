/**
 * Scale of data: one organization with 1,000,000 users and 1,000,000 enrollments, on SQLite and
 * on PostgreSQL. Measures the p50 latency of list pages near the start and deep into the list,
 * as a client sees it (one request at a time, keep-alive). Targets (issue 12): page 1 of the
 * users within 10 ms, exact total included; page 10,000 no slower than before the counters and
 * the read path (149 ms SQLite, 162 ms PostgreSQL, docs/benchmarks.md).
 */
import { COURSES, courseId, loadPostgres, loadSqlite } from './bulk-load';
import { fmt, heading, lmsCli, median, settings, startLms, table, tempPostgres, tempSqlite } from './lib';

const USERS = Number(process.env.BENCH_SCALE_USERS ?? 1_000_000);
const ENROLLMENTS = Number(process.env.BENCH_SCALE_ENROLLMENTS ?? 1_000_000);
const PER_PAGE = 100;
/** Milliseconds a probe may take, per database. */
type Limit = Record<'SQLite' | 'PostgreSQL', number>;
/** Each point: this many runs of this many sequential requests; the p50 of each run, then their median. */
const RUNS = settings.runs;
const REQUESTS_PER_RUN = 5;

interface Probe {
	name: string;
	path: string;
	/** The probe this one is compared with (page 1 of the same list). */
	baseline?: string;
	limit?: Limit;
}

function probes(): Probe[] {
	const lastUserPage = Math.ceil(USERS / PER_PAGE);
	const perCourse = Math.ceil(ENROLLMENTS / COURSES);
	const course = courseId(7);
	const users = (page: number) => `/api/v1/users?per_page=${PER_PAGE}&page=${page}`;
	const byCourse = (page: number) => `/api/v1/enrollments?course_id=${course}&per_page=${PER_PAGE}&page=${page}`;
	const list: Probe[] = [{ name: 'users page 1', path: users(1), limit: { SQLite: 10, PostgreSQL: 10 } }];
	for (const page of [1_000, 10_000]) {
		const limit = page === 10_000 ? { SQLite: 149, PostgreSQL: 162 } : undefined;
		if (page <= lastUserPage) list.push({ name: `users page ${page.toLocaleString('en-US')}`, path: users(page), baseline: 'users page 1', limit });
	}
	const lastCoursePage = Math.ceil(perCourse / PER_PAGE);
	list.push({ name: `enrollments?course_id= page 1 (${perCourse.toLocaleString('en-US')} match)`, path: byCourse(1) });
	list.push({ name: `enrollments?course_id= page ${lastCoursePage} (last)`, path: byCourse(lastCoursePage), baseline: list[list.length - 1].name });
	list.push({ name: 'enrollments?status=completed page 1', path: `/api/v1/enrollments?status=completed&per_page=${PER_PAGE}&page=1` });
	return list;
}

async function timeRequest(url: string, key: string): Promise<number> {
	const started = performance.now();
	const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
	const body = await res.arrayBuffer();
	const elapsed = performance.now() - started;
	if (res.status !== 200 || body.byteLength < 100) throw new Error(`GET ${url}: ${res.status} ${Buffer.from(body).toString().slice(0, 300)}`);
	return elapsed;
}

async function measure(baseUrl: string, key: string): Promise<Map<string, number>> {
	const results = new Map<string, number>();
	for (const probe of probes()) {
		for (let i = 0; i < 2; i++) await timeRequest(baseUrl + probe.path, key); // warm caches
		const runP50s: number[] = [];
		for (let run = 0; run < RUNS; run++) {
			const times: number[] = [];
			for (let i = 0; i < REQUESTS_PER_RUN; i++) times.push(await timeRequest(baseUrl + probe.path, key));
			runP50s.push(median(times));
		}
		results.set(probe.name, median(runP50s));
	}
	return results;
}

async function prepare(databaseUrl: string): Promise<{ organizationId: string; key: string }> {
	const env = { DATABASE_URL: databaseUrl };
	await lmsCli(['migrate'], env);
	const org = JSON.parse(await lmsCli(['orgs', 'create', '--name', 'Bench Corp', '--slug', 'bench', '--plan', 'enterprise', '--json'], env)) as { id: string };
	const key = JSON.parse(
		await lmsCli(['keys', 'create', '--org', 'bench', '--label', 'bench', '--scopes', 'read:users,read:enrollments', '--json'], env),
	) as { key: string };
	return { organizationId: org.id, key: key.key };
}

async function sqliteRun(): Promise<Map<string, number>> {
	const db = tempSqlite();
	try {
		const { organizationId, key } = await prepare(db.databaseUrl);
		await loadSqlite(db.file, { organizationId, users: USERS, enrollments: ENROLLMENTS });
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
		return await serveAndMeasure(db.databaseUrl, key);
	} finally {
		await db.remove();
	}
}

async function serveAndMeasure(databaseUrl: string, key: string): Promise<Map<string, number>> {
	const server = await startLms({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' });
	try {
		return await measure(server.baseUrl, key);
	} finally {
		await server.stop();
	}
}

export async function scale(): Promise<void> {
	heading(`Scale: ${USERS.toLocaleString('en-US')} users and ${ENROLLMENTS.toLocaleString('en-US')} enrollments in one organization`);
	console.log(`per_page=${PER_PAGE}; p50 of ${REQUESTS_PER_RUN} sequential requests, median of ${RUNS} runs\n`);
	const dialects: Array<[string, () => Promise<Map<string, number>>]> = [
		['SQLite', sqliteRun],
		['PostgreSQL', postgresRun],
	];
	const only = process.env.BENCH_SCALE_DIALECT?.toLowerCase();
	const results: Array<[string, Map<string, number>]> = [];
	for (const [dialect, run] of dialects) {
		if (only && !dialect.toLowerCase().startsWith(only)) continue;
		console.log(`${dialect}:`);
		results.push([dialect, await run()]);
	}
	const rows: Array<Array<string | number>> = [];
	for (const probe of probes()) {
		const cells: Array<string | number> = [probe.name];
		for (const [dialect, values] of results) {
			const value = values.get(probe.name)!;
			const limit = probe.limit?.[dialect as keyof Limit];
			const verdict = limit === undefined ? '' : `≤ ${limit} ms: **${value <= limit ? 'met' : 'missed'}**`;
			const ratio = probe.baseline ? `${(value / values.get(probe.baseline)!).toFixed(2)}×` : '';
			cells.push(fmt.ms(value), ratio, verdict);
		}
		rows.push(cells);
	}
	console.log('');
	console.log(table(['request', ...results.flatMap(([d]) => [`${d} p50 ms`, `${d} vs page 1`, `${d} target`])], rows));
}
