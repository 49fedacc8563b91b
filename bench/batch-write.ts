/**
 * The server's side of the n8n bulk job alone (issue 26): 10,000 enrollments sent as 100
 * `POST /api/v1/enrollments/batch` of 100 items, one after another, each with an Idempotency-Key
 * as the node sends it, to `lms-server start` with its limit raised, on SQLite and PostgreSQL.
 * Reports the time a batch takes (median, p90, all 100 together) and the server process's CPU
 * time per batch, which moves less with the machine's load than the wall time does. Every item
 * must answer 201. `BENCH_BATCH_DIALECT` (sqlite or postgres) runs one database alone,
 * `BENCH_BATCH_ENROLLMENTS` another count.
 */
import { join } from 'node:path';

import { activeStudents, loadPostgres, loadSqlite } from './bulk-load';
import { fmt, heading, lmsCli, median, ROOT, spawnServer, startLms, table, tempPostgres, tempSqlite } from './lib';

const PEOPLE = Number(process.env.BENCH_BATCH_ENROLLMENTS ?? 10_000);
const BATCH = 100;

interface Result {
	database: string;
	batches: number[];
	cpuSeconds: number;
}

function p90(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)];
}

async function measure(database: string, databaseUrl: string, load: (organizationId: string, users: number) => Promise<void>): Promise<Result> {
	const demo = JSON.parse(await lmsCli(['seed', '--demo', '--json'], { DATABASE_URL: databaseUrl })) as { organizations: Array<{ slug: string; id: string }> };
	const acme = demo.organizations.find((o) => o.slug === 'acme')!;
	const { students, users } = activeStudents(PEOPLE);
	await load(acme.id, users);
	const { key } = JSON.parse(
		await lmsCli(['keys', 'create', '--org', 'acme', '--label', 'batch bench', '--scopes', 'read:courses,write:enrollments', '--json'], {
			DATABASE_URL: databaseUrl,
		}),
	) as { key: string };
	const env = { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' };
	// BENCH_BATCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops.
	const profile = process.env.BENCH_BATCH_CPU_PROF;
	const server = profile
		? await spawnServer(['--cpu-prof', `--cpu-prof-dir=${profile}`, join(ROOT, 'server', 'bin', 'lms-server.js'), 'start'], env)
		: await startLms(env);
	try {
		const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
		const courses = await fetch(`${server.baseUrl}/api/v1/courses?per_page=1`, { headers });
		const course = ((await courses.json()) as { data: Array<{ id: string }> }).data[0].id;
		const batches: number[] = [];
		const cpuBefore = server.cpuSeconds();
		for (let from = 0; from < PEOPLE; from += BATCH) {
			const items = students.slice(from, from + BATCH).map((student_id) => ({ student_id, course_id: course }));
			const started = performance.now();
			const response = await fetch(`${server.baseUrl}/api/v1/enrollments/batch`, {
				method: 'POST',
				headers: { ...headers, 'Idempotency-Key': `batch-bench:${from}` },
				body: JSON.stringify({ items }),
			});
			const text = await response.text();
			batches.push(performance.now() - started);
			if (response.status !== 200) throw new Error(`batch ${from}: ${response.status} ${text.slice(0, 300)}`);
			const failed = (JSON.parse(text) as { data: Array<{ status: number; body: unknown }> }).data.find((item) => item.status !== 201);
			if (failed) throw new Error(`batch ${from}: an item answered ${failed.status} ${JSON.stringify(failed.body).slice(0, 300)}`);
		}
		const cpuSeconds = server.cpuSeconds() - cpuBefore;
		return { database, batches, cpuSeconds };
	} finally {
		await server.stop();
	}
}

export async function batchWriteBench(): Promise<void> {
	heading(`Batch writes: ${fmt.int(PEOPLE)} enrollments as POST /enrollments/batch of ${BATCH}, one at a time, limit raised`);
	const only = process.env.BENCH_BATCH_DIALECT?.toLowerCase();
	const results: Result[] = [];
	if (!only || only.startsWith('sqlite')) {
		const db = tempSqlite();
		try {
			results.push(await measure('SQLite', db.databaseUrl, (organizationId, users) => loadSqlite(db.file, { organizationId, users, enrollments: 0 })));
		} finally {
			await db.remove();
		}
	}
	if (!only || only.startsWith('postgres')) {
		const db = await tempPostgres();
		try {
			results.push(
				await measure('PostgreSQL', db.databaseUrl, (organizationId, users) => loadPostgres(db.databaseUrl, { organizationId, users, enrollments: 0 })),
			);
		} finally {
			await db.remove();
		}
	}
	console.log('');
	console.log(
		table(
			['database', 'batches', 'batch p50 ms', 'batch p90 ms', 'all s', 'server CPU ms / batch', 'ms / item (p50)'],
			results.map(({ database, batches, cpuSeconds }) => [
				database,
				batches.length,
				fmt.ms(median(batches)),
				fmt.ms(p90(batches)),
				(batches.reduce((a, b) => a + b, 0) / 1000).toFixed(1),
				fmt.ms((cpuSeconds * 1000) / batches.length),
				fmt.ms(median(batches) / BATCH),
			]),
		),
	);
}
