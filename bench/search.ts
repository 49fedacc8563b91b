/**
 * Lookups (SPEC §13, §16): `GET /api/v1/users?search=…`, and the identity providers' lookups by
 * external id and e-mail, on one organization of 1,000,000 users, on SQLite and on PostgreSQL.
 * Targets: a search answers within 50 ms (p50), a lookup by external id within 10 ms (issue 24), as a client sees it
 * (one request at a time, keep-alive); page 1 of the unfiltered list, measured in the same run,
 * is the baseline. Bulk-loaded users are "Bench User <i>" / user<i>@bench.example / EMP-<i>
 * (every tenth deactivated), and the
 * search index is filled as the model hook fills it (bench/bulk-load.ts).
 */
import { loadPostgres, loadSqlite } from './bulk-load';
import { fmt, heading, lmsCli, median, settings, startLms, table, tempPostgres, tempSqlite } from './lib';

const USERS = Number(process.env.BENCH_SEARCH_USERS ?? 1_000_000);
const TARGET_MS = 50;
const RUNS = settings.runs;
const REQUESTS_PER_RUN = 5;

export interface Probe {
	name: string;
	path: string;
	/** The p50 it is held to; the baseline and the status list are not held to one. */
	target?: number;
}

const LOOKUP_TARGET_MS = 10;

const PROBES: Probe[] = [
	{ name: 'users page 1 (no search, baseline)', path: '/api/v1/users?per_page=50' },
	{ name: 'search=user12345 (e-mail prefix, 11 match)', path: '/api/v1/users?search=user12345', target: TARGET_MS },
	{ name: 'search=4242 (a later name word, 111 match)', path: '/api/v1/users?search=4242', target: TARGET_MS },
	{ name: 'search=42&role=student (11,111 match)', path: '/api/v1/users?search=42&role=student', target: TARGET_MS },
	{ name: 'search=zzz (no match)', path: '/api/v1/users?search=zzz', target: TARGET_MS },
	{ name: 'external_id=EMP-777777 (1 match)', path: '/api/v1/users?external_id=EMP-777777', target: LOOKUP_TARGET_MS },
	{ name: 'external_id=EMP-none (no match)', path: '/api/v1/users?external_id=EMP-none', target: LOOKUP_TARGET_MS },
	{ name: 'email=user777777@bench.example (1 match)', path: '/api/v1/users?email=user777777@bench.example', target: LOOKUP_TARGET_MS },
	{ name: 'status=deactivated (100,000 match, counted)', path: '/api/v1/users?status=deactivated' },
];

export async function timeRequest(url: string, key: string): Promise<number> {
	const started = performance.now();
	const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
	const body = await res.text();
	const elapsed = performance.now() - started;
	if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 300)}`);
	return elapsed;
}

export async function measure(baseUrl: string, key: string, probes: Probe[] = PROBES): Promise<Map<string, number>> {
	const results = new Map<string, number>();
	for (const probe of probes) {
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

export async function prepare(databaseUrl: string, scopes = 'read:users'): Promise<{ organizationId: string; key: string }> {
	const env = { DATABASE_URL: databaseUrl };
	await lmsCli(['migrate'], env);
	const org = JSON.parse(await lmsCli(['orgs', 'create', '--name', 'Bench Corp', '--slug', 'bench', '--plan', 'enterprise', '--json'], env)) as { id: string };
	const key = JSON.parse(await lmsCli(['keys', 'create', '--org', 'bench', '--label', 'bench', '--scopes', scopes, '--json'], env)) as { key: string };
	return { organizationId: org.id, key: key.key };
}

export async function serveAndMeasure(databaseUrl: string, key: string, probes: Probe[] = PROBES): Promise<Map<string, number>> {
	const server = await startLms({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' });
	try {
		return await measure(server.baseUrl, key, probes);
	} finally {
		await server.stop();
	}
}

async function sqliteRun(): Promise<Map<string, number>> {
	const db = tempSqlite();
	try {
		const { organizationId, key } = await prepare(db.databaseUrl);
		await loadSqlite(db.file, { organizationId, users: USERS, enrollments: 0, searchWords: true });
		return await serveAndMeasure(db.databaseUrl, key);
	} finally {
		await db.remove();
	}
}

async function postgresRun(): Promise<Map<string, number>> {
	const db = await tempPostgres();
	try {
		const { organizationId, key } = await prepare(db.databaseUrl);
		await loadPostgres(db.databaseUrl, { organizationId, users: USERS, enrollments: 0, searchWords: true });
		return await serveAndMeasure(db.databaseUrl, key);
	} finally {
		await db.remove();
	}
}

export async function searchBench(): Promise<void> {
	heading(`Search: ${USERS.toLocaleString('en-US')} users in one organization`);
	console.log(`p50 of ${REQUESTS_PER_RUN} sequential requests, median of ${RUNS} runs; targets: a search within ${TARGET_MS} ms, a lookup within ${LOOKUP_TARGET_MS} ms\n`);
	const dialects: Array<[string, () => Promise<Map<string, number>>]> = [
		['SQLite', sqliteRun],
		['PostgreSQL', postgresRun],
	];
	const only = process.env.BENCH_SEARCH_DIALECT?.toLowerCase();
	const results: Array<[string, Map<string, number>]> = [];
	for (const [dialect, run] of dialects) {
		if (only && !dialect.toLowerCase().startsWith(only)) continue;
		console.log(`${dialect}:`);
		results.push([dialect, await run()]);
	}
	const baseline = PROBES[0].name;
	const rows = PROBES.map((probe) => [
		probe.name,
		...results.flatMap(([, values]) => {
			const value = values.get(probe.name)!;
			const verdict = probe.target === undefined ? '' : value <= probe.target ? `met (≤ ${probe.target})` : `missed (> ${probe.target})`;
			return [fmt.ms(value), `${(value / values.get(baseline)!).toFixed(2)}×`, verdict];
		}),
	]);
	console.log('');
	console.log(table(['request', ...results.flatMap(([d]) => [`${d} p50 ms`, `${d} vs page 1`, 'target'])], rows));
}
