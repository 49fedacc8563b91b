/**
 * API overhead: the authenticated users list (per_page=50) against a bare Express app serving
 * the same bytes, both as separate processes on this machine, at 1, 16 and 64 connections.
 * Runs alternate between the two so that drift (thermal, other load) hits both alike.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { demoDatabase, fmt, heading, load, median, settings, spawnServer, startLms, table, tempSqlite, type LoadResult } from './lib';

const CONNECTIONS = [1, 16, 64];
const TARGET_RATIO = 0.6;
const PATH = '/api/v1/users?per_page=50';

export async function apiOverhead(): Promise<void> {
	heading('API overhead: GET /api/v1/users?per_page=50 vs bare Express, same bytes');
	const db = tempSqlite();
	const key = await demoDatabase(db.databaseUrl);
	const lms = await startLms({ DATABASE_URL: db.databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' });
	const auth = { authorization: `Bearer ${key}` };

	const first = await fetch(lms.baseUrl + PATH, { headers: auth });
	const bytes = Buffer.from(await first.arrayBuffer());
	if (first.status !== 200) throw new Error(`GET ${PATH}: ${first.status} ${bytes.toString()}`);
	const bodyFile = join(db.file + '.users.json');
	writeFileSync(bodyFile, bytes);
	const bare = await spawnServer([join(__dirname, 'bare-express.js')], { BODY_FILE: bodyFile });
	console.log(`response: ${bytes.length} bytes; ${settings.runs} runs × ${settings.seconds} s per point, alternating; SQLite, LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? 'info'}\n`);

	const rows: Array<Array<string | number>> = [];
	try {
		for (const connections of CONNECTIONS) {
			// Warm both (JIT, SQLite page cache, connection setup) before measuring.
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
				connections,
				fmt.int(m(runs.bare, 'rps')),
				fmt.int(m(runs.lms, 'rps')),
				`**${fmt.ratio(ratio)}**`,
				ratio >= TARGET_RATIO ? 'met' : `missed by ${fmt.ratio(TARGET_RATIO - ratio)}`,
				`${fmt.ms(m(runs.bare, 'p50'))} / ${fmt.ms(m(runs.bare, 'p99'))}`,
				`${fmt.ms(m(runs.lms, 'p50'))} / ${fmt.ms(m(runs.lms, 'p99'))}`,
			]);
			console.log(`  ${connections} connections done`);
		}
	} finally {
		await bare.stop();
		await lms.stop();
		db.remove();
	}
	console.log('');
	console.log(
		table(
			['connections', 'bare req/s', 'LMS req/s', 'ratio', `target ≥ ${TARGET_RATIO}`, 'bare p50 / p99 ms', 'LMS p50 / p99 ms'],
			rows,
		),
	);
}
