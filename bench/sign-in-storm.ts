/**
 * Sign-in storm (SPEC §14): the API's median latency while several clients sign in as fast as
 * they can, against the same server idle, in the same run. Each client signs in from its own
 * loopback address (127.0.0.2, 127.0.0.3…) with the right password, so no limit stops it: every
 * sign-in costs one full scrypt (N = 2^17). Runs alternate idle / storm so that drift hits both
 * alike. Target: storm p50 ≤ 2 × idle p50.
 */
import { PageClient } from '../test/helpers/page-client';
import { fmt, heading, lmsCli, load, median, settings, startLms, table, tempPostgres, tempSqlite, type LoadResult } from './lib';

const TARGET_RATIO = 2;
const CLIENTS = Number(process.env.BENCH_SIGN_IN_CLIENTS ?? 8);
const CONNECTIONS = 4;
const PATH = '/api/v1/courses?per_page=10';

interface Account {
	email: string;
	password: string;
	role: string;
	organization: string;
}

/** Keeps `CLIENTS` sign-in loops running until stopped; counts the sign-ins that succeeded. */
function storm(baseUrl: string, account: Account): { stop(): Promise<{ signIns: number; failures: number }> } {
	let running = true;
	let signIns = 0;
	let failures = 0;
	const loops = Array.from({ length: CLIENTS }, async (_, i) => {
		while (running) {
			const client = new PageClient(baseUrl, `127.0.0.${2 + i}`);
			const res = await client.signIn(account.email, account.password);
			if (res.status === 303) signIns++;
			else failures++;
		}
	});
	return {
		async stop() {
			running = false;
			await Promise.all(loops);
			return { signIns, failures };
		},
	};
}

async function measure(dialect: string, databaseUrl: string): Promise<Array<Array<string | number>>> {
	const demo = JSON.parse(await lmsCli(['seed', '--demo', '--json'], { DATABASE_URL: databaseUrl })) as { accounts: Account[] };
	const account = demo.accounts.find((a) => a.organization === 'acme' && a.role === 'super_admin')!;
	const key = (
		JSON.parse(
			await lmsCli(['keys', 'create', '--org', 'acme', '--label', 'bench', '--scopes', 'read:courses', '--json'], { DATABASE_URL: databaseUrl }),
		) as { key: string }
	).key;
	const lms = await startLms({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' });
	const auth = { authorization: `Bearer ${key}` };
	try {
		await load(lms.baseUrl + PATH, CONNECTIONS, 2, auth);
		const idle: LoadResult[] = [];
		const busy: LoadResult[] = [];
		let signIns = 0;
		let failures = 0;
		let stormSeconds = 0;
		for (let i = 0; i < settings.runs; i++) {
			idle.push(await load(lms.baseUrl + PATH, CONNECTIONS, settings.seconds, auth));
			const running = storm(lms.baseUrl, account);
			// Let the storm fill the hashing queue before measuring.
			await new Promise((r) => setTimeout(r, 1000));
			const started = Date.now();
			busy.push(await load(lms.baseUrl + PATH, CONNECTIONS, settings.seconds, auth));
			stormSeconds += (Date.now() - started) / 1000;
			const counted = await running.stop();
			signIns += counted.signIns;
			failures += counted.failures;
		}
		const apiFailures = [...idle, ...busy].reduce((n, r) => n + r.non2xx + r.errors, 0);
		if (apiFailures > 0 || failures > 0) throw new Error(`${apiFailures} API and ${failures} sign-in failures`);
		const p50 = (list: LoadResult[]) => median(list.map((r) => r.p50));
		const p99 = (list: LoadResult[]) => median(list.map((r) => r.p99));
		// autocannon's latencies are whole milliseconds: a 0 ms idle median counts as 1 ms.
		const ratio = Math.max(p50(busy), 1) / Math.max(p50(idle), 1);
		return [
			[
				dialect,
				CLIENTS,
				(signIns / stormSeconds).toFixed(1),
				`${fmt.wholeMs(p50(idle))} / ${fmt.wholeMs(p99(idle))}`,
				`${fmt.wholeMs(p50(busy))} / ${fmt.wholeMs(p99(busy))}`,
				`**${fmt.ratio(ratio)}**`,
				ratio <= TARGET_RATIO ? 'met' : 'missed',
			],
		];
	} finally {
		await lms.stop();
	}
}

export async function signInStorm(): Promise<void> {
	heading(`Sign-in storm: GET ${PATH} p50, idle vs ${CLIENTS} loopback clients signing in`);
	console.log(`${settings.runs} runs × ${settings.seconds} s, alternating idle / storm, ${CONNECTIONS} API connections, medians\n`);
	const only = process.env.BENCH_STORM_DB?.toLowerCase();
	const rows: Array<Array<string | number>> = [];
	if (!only || only === 'sqlite') {
		const db = tempSqlite();
		try {
			rows.push(...(await measure('SQLite', db.databaseUrl)));
		} finally {
			await db.remove();
		}
	}
	if (!only || only === 'postgres') {
		const db = await tempPostgres();
		try {
			rows.push(...(await measure('PostgreSQL', db.databaseUrl)));
		} finally {
			await db.remove();
		}
	}
	console.log(table(['database', 'clients', 'sign-ins/s', 'idle p50 / p99 ms', 'storm p50 / p99 ms', 'ratio', `target ≤ ${TARGET_RATIO}×`], rows));
}
