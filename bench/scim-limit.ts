/**
 * 10,000 SCIM creates at the default SCIM limit (issue 38, SPEC §21): an identity provider's
 * first sync against `SCIM_RATE_LIMIT_PER_MINUTE` (default 1,800 per API key), with the client
 * honouring 429 + Retry-After as Okta and Entra do. Target: the whole run takes ≤ 1.1× the floor
 * the limit sets.
 *
 * The floor, from how the limiter counts (express-rate-limit, per key, in memory or Redis): a
 * fixed window of RATE_LIMIT_WINDOW_MS (60 s) opens at the first request after the last one
 * closed and lets LIMIT requests through. However fast the client, request number k (1-based)
 * cannot be accepted before window ⌈k / LIMIT⌉ − 1 opens, so N creates need at least
 * (⌈N / LIMIT⌉ − 1) windows: 5 × 60 s = 300 s for 10,000 at 1,800. The time to send the last
 * window's share is the server's speed, not the limit's, and is counted against the 10 % margin.
 *
 * A fresh database per dialect (no bulk-loaded users: the limit is the subject, and `scim`
 * measures creates among 1,000,000 people), one real `lms-server start` with the limits as
 * shipped; CONCURRENCY requests in flight, as a provider's sync sends a few at a time.
 */
import { fmt, heading, lmsCli, startLms, table, tempPostgres, tempSqlite } from './lib';

const CREATES = Number(process.env.BENCH_SCIM_LIMIT_CREATES ?? 10_000);
/** The server's defaults (server/src/config.ts): the bench starts the server without either variable. */
const LIMIT = 1800;
const WINDOW_MS = 60_000;
const CONCURRENCY = 4;
const TARGET = 1.1;

const floorMs = (creates: number) => (Math.ceil(creates / LIMIT) - 1) * WINDOW_MS;

interface Outcome {
	seconds: number;
	created: number;
	throttled: number;
	errors: number;
	/** totalResults of /scim/v2/Users afterwards: every create landed once. */
	listed: number;
}

function userBody(i: number) {
	return {
		schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
		userName: `hire${i}@limit.example`,
		externalId: `LIMIT-${i}`,
		name: { givenName: `Hire ${i}`, familyName: 'Limit' },
		emails: [{ value: `hire${i}@limit.example`, type: 'work', primary: true }],
		active: true,
	};
}

/** Creates CREATES users, CONCURRENCY at a time; a 429 holds every worker until its Retry-After has passed, then the same user is sent again. */
async function createAll(baseUrl: string, key: string): Promise<Omit<Outcome, 'listed'>> {
	let next = 0;
	let created = 0;
	let throttled = 0;
	let errors = 0;
	let resumeAt = 0;
	const worker = async () => {
		for (let i = next++; i < CREATES; i = next++) {
			for (;;) {
				const wait = resumeAt - Date.now();
				if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
				const res = await fetch(`${baseUrl}/scim/v2/Users`, {
					method: 'POST',
					headers: { authorization: `Bearer ${key}`, 'content-type': 'application/scim+json' },
					body: JSON.stringify(userBody(i)),
				});
				await res.arrayBuffer();
				if (res.status === 429) {
					throttled++;
					const retryAfter = Number(res.headers.get('retry-after'));
					if (!Number.isFinite(retryAfter) || retryAfter < 0) throw new Error(`429 without a usable Retry-After: ${res.headers.get('retry-after')}`);
					resumeAt = Math.max(resumeAt, Date.now() + retryAfter * 1000);
					continue;
				}
				if (res.status === 201) created++;
				else {
					errors++;
					if (errors <= 3) console.log(`  create ${i}: ${res.status}`);
				}
				break;
			}
		}
	};
	const started = performance.now();
	await Promise.all(Array.from({ length: CONCURRENCY }, worker));
	return { seconds: (performance.now() - started) / 1000, created, throttled, errors };
}

async function run(databaseUrl: string): Promise<Outcome> {
	const env = { DATABASE_URL: databaseUrl };
	await lmsCli(['migrate'], env);
	await lmsCli(['orgs', 'create', '--name', 'Bench Corp', '--slug', 'bench', '--plan', 'enterprise', '--json'], env);
	const key = (JSON.parse(await lmsCli(['keys', 'create', '--org', 'bench', '--label', 'idp', '--scopes', 'read:users,write:users', '--json'], env)) as { key: string }).key;
	const server = await startLms({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
	try {
		const outcome = await createAll(server.baseUrl, key);
		console.log(`  ${outcome.created} created in ${outcome.seconds.toFixed(1)} s; ${outcome.throttled} answered 429, ${outcome.errors} errors`);
		// The count is read once the next window lets a request through.
		let listed = -1;
		while (listed < 0) {
			const res = await fetch(`${server.baseUrl}/scim/v2/Users?count=0`, { headers: { authorization: `Bearer ${key}` } });
			if (res.status === 429) await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after')) * 1000));
			else listed = ((await res.json()) as { totalResults: number }).totalResults;
		}
		return { ...outcome, listed };
	} finally {
		await server.stop();
	}
}

export async function scimLimitBench(): Promise<void> {
	if (CREATES <= LIMIT) throw new Error(`BENCH_SCIM_LIMIT_CREATES: more than ${LIMIT} creates are needed for the limit to set a floor`);
	const floor = floorMs(CREATES) / 1000;
	heading(`SCIM creates at the default SCIM limit: ${CREATES.toLocaleString('en-US')} creates, ${LIMIT.toLocaleString('en-US')} a ${WINDOW_MS / 1000} s window per key`);
	console.log(`floor (⌈${CREATES} / ${LIMIT}⌉ − 1) × ${WINDOW_MS / 1000} s = ${floor} s; ${CONCURRENCY} requests in flight, 429 + Retry-After honoured\n`);
	const only = process.env.BENCH_SCIM_LIMIT_DIALECT?.toLowerCase();
	const out: Array<Array<string | number>> = [];
	for (const dialect of ['SQLite', 'PostgreSQL']) {
		if (only && !dialect.toLowerCase().startsWith(only)) continue;
		console.log(`${dialect}:`);
		const db = dialect === 'SQLite' ? tempSqlite() : await tempPostgres();
		try {
			const r = await run(db.databaseUrl);
			const ratio = r.seconds / floor;
			const met = ratio <= TARGET && r.created === CREATES && r.listed === CREATES && r.errors === 0;
			out.push([
				dialect,
				`${r.seconds.toFixed(1)} s against ${floor} s: ${fmt.ratio(ratio)}×`,
				`${r.created.toLocaleString('en-US')} created, ${r.listed.toLocaleString('en-US')} listed, ${r.throttled.toLocaleString('en-US')} × 429, ${r.errors} errors`,
				met ? 'met' : '**missed**',
			]);
		} finally {
			await db.remove();
		}
	}
	console.log('');
	console.log(table(['database', `wall ≤ ${TARGET}× floor`, 'creates', 'verdict'], out));
}
