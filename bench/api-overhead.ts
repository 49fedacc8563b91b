/**
 * API overhead: the authenticated users list (per_page=50) against a bare Express app serving
 * the same bytes, both as separate processes on this machine, at 1, 16 and 64 connections, with
 * the server on SQLite and on PostgreSQL. Runs alternate between the two servers so that drift
 * (thermal, other load) hits both alike.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { demoDatabase, fmt, heading, load, median, settings, spawnServer, startLms, table, tempPostgres, tempSqlite, type LoadResult } from './lib';

const CONNECTIONS = [1, 16, 64];
const TARGET_RATIO = 0.6;
const PATH = '/api/v1/users?per_page=50';
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';

async function compare(dialect: string, databaseUrl: string): Promise<Array<Array<string | number>>> {
	const key = await demoDatabase(databaseUrl);
	const lms = await startLms({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL });
	const auth = { authorization: `Bearer ${key}` };
	const bodyFile = join(tmpdir(), `lms-bench-users-${process.pid}.json`);
	const rows: Array<Array<string | number>> = [];
	try {
		const first = await fetch(lms.baseUrl + PATH, { headers: auth });
		const bytes = Buffer.from(await first.arrayBuffer());
		if (first.status !== 200) throw new Error(`GET ${PATH}: ${first.status} ${bytes.toString()}`);
		writeFileSync(bodyFile, bytes);
		const bare = await spawnServer([join(__dirname, 'bare-express.js')], { BODY_FILE: bodyFile });
		console.log(`${dialect}: response of ${bytes.length} bytes`);
		try {
			for (const connections of CONNECTIONS) {
				// Warm both (JIT, database caches, connections) before measuring.
				await load(bare.baseUrl + PATH, connections, 2);
				await load(lms.baseUrl + PATH, connections, 2, auth);
				const runs: { bare: LoadResult[]; lms: LoadResult[] } = { bare: [], lms: [] };
				for (let i = 0; i < settings.runs; i++) {
					runs.bare.push(await load(bare.baseUrl + PATH, connections, settings.seconds));
					runs.lms.push(await load(lms.baseUrl + PATH, connections, settings.seconds, auth));
				}
				const failures = [...runs.bare, ...runs.lms].reduce((n, r) => n + r.non2xx + r.errors, 0);
				if (failures > 0) throw new Error(`${failures} non-2xx answers or errors at ${connections} connections`);
				const m = (list: LoadResult[], field: keyof LoadResult) => median(list.map((r) => r[field]));
				const ratio = m(runs.lms, 'rps') / m(runs.bare, 'rps');
				rows.push([
					dialect,
					connections,
					fmt.int(m(runs.bare, 'rps')),
					fmt.int(m(runs.lms, 'rps')),
					`**${fmt.ratio(ratio)}**`,
					ratio >= TARGET_RATIO ? 'met' : `missed (${(TARGET_RATIO / ratio).toFixed(0)}× short)`,
					`${fmt.wholeMs(m(runs.bare, 'p50'))} / ${fmt.wholeMs(m(runs.bare, 'p99'))}`,
					`${fmt.wholeMs(m(runs.lms, 'p50'))} / ${fmt.wholeMs(m(runs.lms, 'p99'))}`,
				]);
			}
		} finally {
			await bare.stop();
		}
	} finally {
		await lms.stop();
		rmSync(bodyFile, { force: true });
	}
	return rows;
}

export async function apiOverhead(): Promise<void> {
	heading('API overhead: GET /api/v1/users?per_page=50 vs bare Express, same bytes');
	console.log(`${settings.runs} runs × ${settings.seconds} s per point, alternating, medians; autocannon in this process; LOG_LEVEL=${LOG_LEVEL}\n`);
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
			['database', 'connections', 'bare req/s', 'LMS req/s', 'ratio', `target ≥ ${TARGET_RATIO}`, 'bare p50 / p99 ms', 'LMS p50 / p99 ms'],
			rows,
		),
	);
}
