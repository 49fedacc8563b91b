/**
 * Memory: the server's resident set size (from /proc) after 50,000 and after 100,000 requests
 * of a realistic mix (lists, filtered lists, single records, 404s, bad keys), once warm. Growth
 * between the two marks is what a leak would show; it should stay under 10 MB.
 */
import autocannon from 'autocannon';

import { demoDatabase, fmt, heading, sleep, startLms, table, tempSqlite, type ChildServer } from './lib';

const BLOCK = 50_000;
const WARM_UP = 5_000;
const CONNECTIONS = 16;
const TARGET_MB = 10;

function mix(key: string): Array<{ path: string; headers?: Record<string, string> }> {
	const auth = { authorization: `Bearer ${key}` };
	return [
		{ path: '/api/v1/users?per_page=50', headers: auth },
		{ path: '/api/v1/users?role=student&per_page=100&page=2', headers: auth },
		{ path: '/api/v1/enrollments?status=completed&per_page=20', headers: auth },
		{ path: '/api/v1/courses', headers: auth },
		{ path: '/api/v1/certificates?per_page=10', headers: auth },
		{ path: '/api/v1/users/usr_doesnotexist', headers: auth },
		{ path: '/api/v1/users', headers: { authorization: 'Bearer lms_wrong' } },
		{ path: '/api/v1/nowhere', headers: auth },
	];
}

/** `amount` requests spread over the mix; no 5xx or transport error is tolerated. */
async function drive(server: ChildServer, key: string, amount: number): Promise<{ statuses: string }> {
	const requests = mix(key).map((r) => ({ method: 'GET' as const, ...r }));
	const result = await autocannon({ url: server.baseUrl, connections: CONNECTIONS, amount, requests } as unknown as Parameters<typeof autocannon>[0]);
	const r = result as unknown as { '2xx': number; '4xx': number; '5xx': number; errors: number; timeouts: number };
	if (r['5xx'] > 0 || r.errors > 0 || r.timeouts > 0) throw new Error(`${r['5xx']} 5xx, ${r.errors} errors, ${r.timeouts} timeouts`);
	return { statuses: `${r['2xx']} × 2xx + ${r['4xx']} × 4xx` };
}

/** RSS once the process has been idle for a moment (lets pending GC and frees settle). */
async function settledRss(server: ChildServer): Promise<number> {
	await sleep(2_000);
	return server.rss();
}

export async function memory(): Promise<void> {
	heading('Memory: RSS of the server after 50,000 and 100,000 requests');
	const db = tempSqlite();
	const key = await demoDatabase(db.databaseUrl);
	const server = await startLms({ DATABASE_URL: db.databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'info' });
	try {
		const atStart = await settledRss(server);
		const warm = await drive(server, key, WARM_UP);
		const afterWarmUp = await settledRss(server);
		const first = await drive(server, key, BLOCK - WARM_UP);
		const at50k = await settledRss(server);
		const second = await drive(server, key, BLOCK);
		const at100k = await settledRss(server);
		const growth = at100k - at50k;
		console.log(`mix of ${mix(key).length} request kinds, ${CONNECTIONS} connections, SQLite, LOG_LEVEL=info: ${warm.statuses}, then ${first.statuses}, then ${second.statuses}\n`);
		console.log(
			table(
				['RSS at start', 'after 5,000', 'after 50,000', 'after 100,000', 'growth 50k → 100k', `target < ${TARGET_MB} MB`],
				[
					[
						`${fmt.mb(atStart)} MB`,
						`${fmt.mb(afterWarmUp)} MB`,
						`${fmt.mb(at50k)} MB`,
						`${fmt.mb(at100k)} MB`,
						`**${fmt.mb(growth)} MB**`,
						growth / 2 ** 20 < TARGET_MB ? 'met' : 'missed',
					],
				],
			),
		);
	} finally {
		await server.stop();
		await db.remove();
	}
}
