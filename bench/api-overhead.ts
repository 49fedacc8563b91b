/**
 * API overhead: the authenticated users list (per_page=50) of the server as shipped (limiter,
 * logging, validation on) against bench/baseline.ts, a minimal Express app doing the same
 * queries by hand on the same driver and database and sending the same bytes (checked first).
 * Both run as separate processes on this machine, at 1 and 16 connections, on SQLite and on
 * PostgreSQL. Runs alternate between the two servers so that drift (thermal, other load) hits
 * both alike; the load average is printed with the results because the machine is shared, and
 * so is each server process's CPU per request, which the sharing moves far less than req/s.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';

import {
	demoDatabase,
	fmt,
	heading,
	load,
	median,
	settings,
	spawnServer,
	startLms,
	table,
	tempPostgres,
	tempSqlite,
	type ChildServer,
	type LoadResult,
} from './lib';

const CONNECTIONS = [1, 16];
const TARGET_RATIO = 0.7;
const PATH = '/api/v1/users?per_page=50';
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';

/** The body of one list request, for the byte-for-byte check. */
async function answer(baseUrl: string, auth: Record<string, string>): Promise<Buffer> {
	const response = await fetch(baseUrl + PATH, { headers: auth });
	const bytes = Buffer.from(await response.arrayBuffer());
	if (response.status !== 200) throw new Error(`GET ${baseUrl}${PATH}: ${response.status} ${bytes.toString()}`);
	return bytes;
}

interface Measured extends LoadResult {
	/** CPU the server process used per request answered (all its threads), in µs. */
	cpuMicros: number;
}

/**
 * One load run, and the server's CPU per request over it: unlike requests per second, it does
 * not depend on how the two cores happened to be shared among the server, autocannon and
 * anything else that ran meanwhile.
 */
async function measure(server: ChildServer, connections: number, auth: Record<string, string>): Promise<Measured> {
	const before = server.cpuSeconds();
	const result = await load(server.baseUrl + PATH, connections, settings.seconds, auth);
	return { ...result, cpuMicros: ((server.cpuSeconds() - before) * 1e6) / result.requests };
}

async function compare(dialect: string, databaseUrl: string): Promise<Array<Array<string | number>>> {
	const key = await demoDatabase(databaseUrl);
	const lms = await startLms({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL });
	const auth = { authorization: `Bearer ${key}` };
	const rows: Array<Array<string | number>> = [];
	try {
		const bare = await spawnServer([join(__dirname, 'baseline.js')], { DATABASE_URL: databaseUrl });
		try {
			const [ours, theirs] = await Promise.all([answer(lms.baseUrl, auth), answer(bare.baseUrl, auth)]);
			if (!ours.equals(theirs)) throw new Error(`${dialect}: the baseline's bytes differ from the server's:\n${ours.toString()}\n${theirs.toString()}`);
			console.log(`${dialect}: both send the same ${ours.length} bytes`);
			for (const connections of CONNECTIONS) {
				// Warm both (JIT, database caches, connections) before measuring.
				await load(bare.baseUrl + PATH, connections, 2, auth);
				await load(lms.baseUrl + PATH, connections, 2, auth);
				const runs: { bare: Measured[]; lms: Measured[] } = { bare: [], lms: [] };
				for (let i = 0; i < settings.runs; i++) {
					runs.bare.push(await measure(bare, connections, auth));
					runs.lms.push(await measure(lms, connections, auth));
				}
				const failures = [...runs.bare, ...runs.lms].reduce((n, r) => n + r.non2xx + r.errors, 0);
				if (failures > 0) throw new Error(`${failures} non-2xx answers or errors at ${connections} connections`);
				const m = (list: Measured[], field: keyof Measured) => median(list.map((r) => r[field]));
				// Each LMS run is compared with the baseline run just before it: whatever else the
				// machine was doing then weighed on both, so the pair's ratio keeps little of it, where
				// two medians taken apart keep it twice. The verdict is the median pair.
				const pairs = runs.lms.map((r, i) => r.rps / runs.bare[i].rps);
				const cpuPairs = runs.lms.map((r, i) => runs.bare[i].cpuMicros / r.cpuMicros);
				const ratio = median(pairs);
				rows.push([
					dialect,
					connections,
					fmt.int(m(runs.bare, 'rps')),
					fmt.int(m(runs.lms, 'rps')),
					`**${fmt.ratio(ratio)}**`,
					`${fmt.ratio(Math.min(...pairs))}–${fmt.ratio(Math.max(...pairs))}`,
					ratio >= TARGET_RATIO ? 'met' : 'missed',
					`${fmt.wholeMs(m(runs.bare, 'p50'))} / ${fmt.wholeMs(m(runs.bare, 'p99'))}`,
					`${fmt.wholeMs(m(runs.lms, 'p50'))} / ${fmt.wholeMs(m(runs.lms, 'p99'))}`,
					`${fmt.int(m(runs.bare, 'cpuMicros'))} / ${fmt.int(m(runs.lms, 'cpuMicros'))} (${fmt.ratio(median(cpuPairs))})`,
					loadavg()[0].toFixed(1),
				]);
			}
		} finally {
			await bare.stop();
		}
	} finally {
		await lms.stop();
	}
	return rows;
}

export async function apiOverhead(): Promise<void> {
	heading('API overhead: GET /api/v1/users?per_page=50, the server ÷ the hand-written baseline, same bytes');
	console.log(`${settings.runs} runs × ${settings.seconds} s per point, alternating (baseline, then LMS), ratios of each pair, medians; autocannon in this process; LOG_LEVEL=${LOG_LEVEL}\n`);
	const only = process.env.BENCH_OVERHEAD_DB?.toLowerCase();
	const rows: Array<Array<string | number>> = [];
	if (!only || only === 'sqlite') {
		const db = tempSqlite();
		try {
			rows.push(...(await compare('SQLite', db.databaseUrl)));
		} finally {
			await db.remove();
		}
	}
	if (!only || only === 'postgres') {
		const db = await tempPostgres();
		try {
			rows.push(...(await compare('PostgreSQL', db.databaseUrl)));
		} finally {
			await db.remove();
		}
	}
	console.log('');
	console.log(
		table(
			[
				'database',
				'connections',
				'baseline req/s',
				'LMS req/s',
				'ratio (median pair)',
				'pairs: lowest–highest',
				`target ≥ ${TARGET_RATIO}`,
				'baseline p50 / p99 ms',
				'LMS p50 / p99 ms',
				'CPU µs per request: baseline / LMS (ratio)',
				'load avg (1 min)',
			],
			rows,
		),
	);
}
