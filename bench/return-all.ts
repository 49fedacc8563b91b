/**
 * n8n Return All under the default limit: the LMS Users node, run by n8n-core's execution engine
 * (test/helpers/n8n.ts), lists every user of an organization with 10,000 generated users on top
 * of the demo's, against a server left at its default of 100 requests a minute.
 *
 * The floor is the time the limit itself imposes: the limiter's window opens at the first
 * request, so page k (1-based) cannot be answered before ⌊(k−1)/limit⌋ windows have passed;
 * the last page therefore waits ⌊(pages−1)/limit⌋ full windows, and the pages of the final
 * window still take their unthrottled time. That unthrottled time per page is measured in the
 * same run, with the same node, against a server whose limit is raised.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadSqlite } from './bulk-load';
import { fmt, heading, lmsCli, median, settings, startLms, table, tempSqlite } from './lib';

const GENERATED_USERS = Number(process.env.BENCH_RETURN_ALL_USERS ?? 10_000);
const PER_PAGE = 100;
const LIMIT_PER_MINUTE = 100;
const WINDOW_S = 60;
const TARGET = 1.1;

interface RunResult {
	seconds: number;
	items: number;
	error?: string;
}

async function returnAll(baseUrl: string, apiKey: string): Promise<RunResult> {
	// n8n-core writes an encryption key under N8N_USER_FOLDER when first loaded: keep it in tmp.
	process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'lms-bench-n8n-'));
	const { runNode } = await import('../test/helpers/n8n');
	const { LmsUsers } = await import('../nodes/LmsUsers/LmsUsers.node');
	const started = performance.now();
	const { items, error } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true }, { credentials: { baseUrl, apiKey } });
	return { seconds: (performance.now() - started) / 1000, items: items.length, error: error ? `${error.message} ${error.description ?? ''}` : undefined };
}

export async function returnAllBench(): Promise<void> {
	heading('n8n Return All: LMS Users node, default limit (100 requests/minute)');
	const db = tempSqlite();
	try {
		const demo = JSON.parse(await lmsCli(['seed', '--demo', '--json'], { DATABASE_URL: db.databaseUrl })) as {
			organizations: Array<{ slug: string; id: string }>;
		};
		const acme = demo.organizations.find((o) => o.slug === 'acme')!;
		await loadSqlite(db.file, { organizationId: acme.id, users: GENERATED_USERS, enrollments: 0 });
		const { key } = JSON.parse(
			await lmsCli(['keys', 'create', '--org', 'acme', '--label', 'return all', '--scopes', 'read:users', '--json'], { DATABASE_URL: db.databaseUrl }),
		) as { key: string };

		// The unthrottled cost of the same workflow, measured now: median of a few runs.
		const fast = await startLms({ DATABASE_URL: db.databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' });
		const unthrottled: RunResult[] = [];
		try {
			await returnAll(fast.baseUrl, key); // warm-up (module loading, JIT, page cache)
			for (let i = 0; i < Math.max(3, settings.runs); i++) unthrottled.push(await returnAll(fast.baseUrl, key));
		} finally {
			await fast.stop();
		}
		const users = unthrottled[0].items;
		const pages = Math.ceil(users / PER_PAGE);
		const perPage = median(unthrottled.map((r) => r.seconds)) / pages;

		const waits = Math.floor((pages - 1) / LIMIT_PER_MINUTE);
		const lastWindowPages = pages - waits * LIMIT_PER_MINUTE;
		const floor = waits * WINDOW_S + lastWindowPages * perPage;
		console.log(
			`${users.toLocaleString('en-US')} users = ${pages} pages of ${PER_PAGE}; unthrottled ${fmt.ms(perPage * 1000)} ms a page ` +
				`(median of ${unthrottled.length} runs of ${fmt.ms(median(unthrottled.map((r) => r.seconds)))} s)`,
		);
		console.log(`floor = ${waits} × ${WINDOW_S} s (windows the limit forces) + ${lastWindowPages} pages × ${fmt.ms(perPage * 1000)} ms = ${floor.toFixed(1)} s`);
		console.log(`running against the default limit (one run: it takes minutes)…`);

		// The server as shipped: no RATE_LIMIT_* override.
		const server = await startLms({ DATABASE_URL: db.databaseUrl, LOG_LEVEL: 'warn' });
		let run: RunResult;
		try {
			run = await returnAll(server.baseUrl, key);
		} finally {
			await server.stop();
		}
		const ratio = run.seconds / floor;
		console.log('');
		console.log(
			table(
				['users', 'pages', 'floor s', 'wall s', 'ratio', `target ≤ ${TARGET}×`, 'items', 'error'],
				[
					[
						fmt.int(users),
						pages,
						floor.toFixed(1),
						run.seconds.toFixed(1),
						`**${ratio.toFixed(3)}×**`,
						ratio <= TARGET && !run.error && run.items === users ? 'met' : 'missed',
						fmt.int(run.items),
						run.error ?? 'none',
					],
				],
			),
		);
		if (run.error || run.items !== users) throw new Error(`Return All failed: ${run.error ?? `${run.items} of ${users} items`}`);
	} finally {
		await db.remove();
	}
}
