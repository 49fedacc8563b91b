/**
 * What identity providers do most (issue 24): find a person before changing them, and create
 * people one by one. One organization of 1,000,000 bulk-loaded users (`user<i>@bench.example`,
 * external id `EMP-<i>`, bench/bulk-load.ts) on SQLite and PostgreSQL, a real `lms-server start`:
 * - p50 of `GET /scim/v2/Users?filter=userName eq "…"` and `GET /api/v1/users?external_id=…`
 *   (target ≤ 10 ms), against page 1 of the unfiltered list in the same run;
 * - then 10,000 users created through `POST /scim/v2/Users`, one at a time (the per-IP limit
 *   raised for the run): errors (target none) and the time it took.
 */
import { loadPostgres, loadSqlite } from './bulk-load';
import { fmt, heading, lmsCli, median, settings, startLms, table, tempPostgres, tempSqlite } from './lib';

const USERS = Number(process.env.BENCH_SCIM_USERS ?? 1_000_000);
const CREATES = Number(process.env.BENCH_SCIM_CREATES ?? 10_000);
const RUNS = settings.runs;
const REQUESTS_PER_RUN = 5;
const TARGET_MS = 10;

/** Users spread over the organization, a different one per request. */
const pick = (n: number) => (n * 7919 + 4242) % USERS;

interface Probe {
	name: string;
	/** The path of the n-th request. */
	path(n: number): string;
	target?: number;
}

const PROBES: Probe[] = [
	{ name: 'api/v1 users page 1 (baseline)', path: () => '/api/v1/users?per_page=50' },
	{ name: 'scim Users?filter=userName eq "…" (1 match)', path: (n) => `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "USER${pick(n)}@bench.example"`)}`, target: TARGET_MS },
	{ name: 'api/v1 users?external_id=… (1 match)', path: (n) => `/api/v1/users?external_id=EMP-${pick(n)}`, target: TARGET_MS },
	{ name: 'scim Users?filter=userName eq "…" (no match)', path: (n) => `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "nobody${n}@bench.example"`)}` },
];

async function timeRequest(url: string, key: string, expectMatches?: number): Promise<number> {
	const started = performance.now();
	const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
	const text = await res.text();
	const elapsed = performance.now() - started;
	if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text.slice(0, 300)}`);
	if (expectMatches !== undefined) {
		const body = JSON.parse(text) as { totalResults?: number; pagination?: { total: number } };
		const total = body.totalResults ?? body.pagination?.total;
		if (total !== expectMatches) throw new Error(`GET ${url}: ${total} matches, expected ${expectMatches}`);
	}
	return elapsed;
}

async function measure(baseUrl: string, key: string): Promise<Map<string, number>> {
	const results = new Map<string, number>();
	for (const probe of PROBES) {
		const expect = probe.name.includes('(1 match)') ? 1 : probe.name.includes('(no match)') ? 0 : undefined;
		for (let i = 0; i < 2; i++) await timeRequest(baseUrl + probe.path(i), key, expect); // warm caches
		const runP50s: number[] = [];
		for (let run = 0; run < RUNS; run++) {
			const times: number[] = [];
			for (let i = 0; i < REQUESTS_PER_RUN; i++) times.push(await timeRequest(baseUrl + probe.path(run * REQUESTS_PER_RUN + i), key, expect));
			runP50s.push(median(times));
		}
		results.set(probe.name, median(runP50s));
	}
	return results;
}

interface Creates {
	seconds: number;
	errors: number;
	p50: number;
}

/** CREATES users through SCIM, one request after the other, as a provider's first sync does. */
async function createMany(baseUrl: string, key: string): Promise<Creates> {
	const times: number[] = [];
	let errors = 0;
	const started = performance.now();
	for (let i = 0; i < CREATES; i++) {
		const t0 = performance.now();
		const res = await fetch(`${baseUrl}/scim/v2/Users`, {
			method: 'POST',
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/scim+json' },
			body: JSON.stringify({
				schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
				userName: `new${i}@hires.example`,
				externalId: `HIRE-${i}`,
				name: { givenName: `New ${i}`, familyName: 'Hire' },
				emails: [{ value: `new${i}@hires.example`, type: 'work', primary: true }],
				active: true,
			}),
		});
		await res.arrayBuffer();
		times.push(performance.now() - t0);
		if (res.status !== 201) {
			errors++;
			if (errors <= 3) console.log(`  create ${i}: ${res.status}`);
		}
	}
	return { seconds: (performance.now() - started) / 1000, errors, p50: median(times) };
}

async function prepare(databaseUrl: string): Promise<{ organizationId: string; key: string }> {
	const env = { DATABASE_URL: databaseUrl };
	await lmsCli(['migrate'], env);
	const org = JSON.parse(await lmsCli(['orgs', 'create', '--name', 'Bench Corp', '--slug', 'bench', '--plan', 'enterprise', '--json'], env)) as { id: string };
	const key = JSON.parse(await lmsCli(['keys', 'create', '--org', 'bench', '--label', 'idp', '--scopes', 'read:users,write:users', '--json'], env)) as { key: string };
	return { organizationId: org.id, key: key.key };
}

async function serveAndMeasure(databaseUrl: string, key: string): Promise<{ probes: Map<string, number>; creates: Creates }> {
	// The per-IP limit raised for the run: one client sends everything.
	const server = await startLms({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' });
	try {
		const probes = await measure(server.baseUrl, key);
		const creates = await createMany(server.baseUrl, key);
		return { probes, creates };
	} finally {
		await server.stop();
	}
}

async function sqliteRun() {
	const db = tempSqlite();
	try {
		const { organizationId, key } = await prepare(db.databaseUrl);
		await loadSqlite(db.file, { organizationId, users: USERS, enrollments: 0 });
		return await serveAndMeasure(db.databaseUrl, key);
	} finally {
		await db.remove();
	}
}

async function postgresRun() {
	const db = await tempPostgres();
	try {
		const { organizationId, key } = await prepare(db.databaseUrl);
		await loadPostgres(db.databaseUrl, { organizationId, users: USERS, enrollments: 0 });
		return await serveAndMeasure(db.databaseUrl, key);
	} finally {
		await db.remove();
	}
}

export async function scimBench(): Promise<void> {
	heading(`SCIM: lookups on ${USERS.toLocaleString('en-US')} users, ${CREATES.toLocaleString('en-US')} creates one by one`);
	console.log(`p50 of ${REQUESTS_PER_RUN} sequential requests (a different user each), median of ${RUNS} runs\n`);
	const only = process.env.BENCH_SCIM_DIALECT?.toLowerCase();
	const results: Array<[string, Awaited<ReturnType<typeof sqliteRun>>]> = [];
	for (const [dialect, run] of [
		['SQLite', sqliteRun],
		['PostgreSQL', postgresRun],
	] as const) {
		if (only && !dialect.toLowerCase().startsWith(only)) continue;
		console.log(`${dialect}:`);
		results.push([dialect, await run()]);
	}
	const rows = PROBES.map((probe) => [
		probe.name,
		...results.flatMap(([, r]) => {
			const value = r.probes.get(probe.name)!;
			const baseline = r.probes.get(PROBES[0].name)!;
			return [fmt.ms(value), `${(value / baseline).toFixed(2)}×`, probe.target === undefined ? '' : `≤ ${probe.target} ms: **${value <= probe.target ? 'met' : 'missed'}**`];
		}),
	]);
	console.log('');
	console.log(table(['request', ...results.flatMap(([d]) => [`${d} p50 ms`, `${d} vs page 1`, `${d} target`])], rows));
	console.log('');
	console.log(
		table(
			['database', `${CREATES.toLocaleString('en-US')} SCIM creates`, 'per create p50', 'errors'],
			results.map(([d, r]) => [d, `${r.creates.seconds.toFixed(1)} s (${Math.round(CREATES / r.creates.seconds)}/s)`, fmt.ms(r.creates.p50), `${r.creates.errors}${r.creates.errors === 0 ? ' (met)' : ' (**missed**)'}`]),
		),
	);
}
