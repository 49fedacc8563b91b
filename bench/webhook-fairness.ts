/**
 * Webhook fairness (issue 27, finding 4), on SQLite and PostgreSQL, against a real
 * `lms-server start` with the production timeout (WEBHOOK_TIMEOUT_MS 10 s): Acme has 1,000
 * deliveries due to receivers that never answer (100 events × 10 endpoints); meanwhile Globex
 * makes 20 changes one at a time, and each is timed from sending its PATCH to its delivery
 * reaching Globex's receiver. Target: p95 ≤ 2 s.
 */
import { fmt, heading, lmsCli, startLms, table, tempPostgres, tempSqlite } from './lib';
import { startReceiver } from '../test/helpers/receiver';

const HANGING_ENDPOINTS = 10;
const ACME_EVENTS = 100;
const SAMPLES = 20;
const TARGET_MS = 2000;

async function api(baseUrl: string, key: string, path: string, init: { method?: string; body?: unknown } = {}) {
	const res = await fetch(`${baseUrl}${path}`, {
		method: init.method ?? 'GET',
		headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: init.body === undefined ? undefined : JSON.stringify(init.body),
	});
	const text = await res.text();
	if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${text}`);
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	return (text ? JSON.parse(text) : undefined) as any;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

async function oneDatabase(label: string, databaseUrl: string): Promise<string[]> {
	await lmsCli(['seed', '--demo', '--json'], { DATABASE_URL: databaseUrl });
	const keyOf = async (org: string) =>
		(
			JSON.parse(
				await lmsCli(['keys', 'create', '--org', org, '--label', 'bench', '--scopes', 'read:users,read:courses,read:enrollments,write:enrollments,manage:webhooks', '--json'], {
					DATABASE_URL: databaseUrl,
				}),
			) as { key: string }
		).key;
	const [acme, globex] = [await keyOf('acme'), await keyOf('globex')];
	const server = await startLms({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'error' });
	const hanging = await startReceiver('/hang');
	hanging.answer(() => undefined);
	const healthy = await startReceiver('/ok');
	try {
		const enrollmentOf = async (key: string) => ((await api(server.baseUrl, key, '/api/v1/enrollments?status=active&per_page=1')).data as Array<{ id: string }>)[0].id;
		const [acmeEnrollment, globexEnrollment] = [await enrollmentOf(acme), await enrollmentOf(globex)];
		// Known starting points, before any endpoint exists: every PATCH below then changes the progress.
		await api(server.baseUrl, acme, `/api/v1/enrollments/${acmeEnrollment}`, { method: 'PATCH', body: { progress_percent: 10 } });
		await api(server.baseUrl, globex, `/api/v1/enrollments/${globexEnrollment}`, { method: 'PATCH', body: { progress_percent: 99 } });
		for (let i = 0; i < HANGING_ENDPOINTS; i++) {
			await api(server.baseUrl, acme, '/api/v1/webhook_endpoints', { method: 'POST', body: { url: `${hanging.url}/${i}`, events: ['enrollment.progressed'] } });
		}
		for (let step = 1; step <= ACME_EVENTS; step++) {
			await api(server.baseUrl, acme, `/api/v1/enrollments/${acmeEnrollment}`, { method: 'PATCH', body: { progress_percent: step % 2 ? 11 : 10 } });
		}
		await hanging.waitFor(HANGING_ENDPOINTS, 30_000);
		await api(server.baseUrl, globex, '/api/v1/webhook_endpoints', { method: 'POST', body: { url: healthy.url, events: ['enrollment.progressed'] } });
		const delays: number[] = [];
		for (let i = 1; i <= SAMPLES; i++) {
			const sent = performance.now();
			await api(server.baseUrl, globex, `/api/v1/enrollments/${globexEnrollment}`, { method: 'PATCH', body: { progress_percent: i } });
			await healthy.waitFor(i, 600_000);
			delays.push(performance.now() - sent);
		}
		const p95 = percentile(delays, 95);
		return [label, `${ACME_EVENTS * HANGING_ENDPOINTS}`, `${fmt.ms(percentile(delays, 50))} ms`, `${fmt.ms(p95)} ms`, `${fmt.ms(Math.max(...delays))} ms`, p95 <= TARGET_MS ? 'met' : 'MISSED'];
	} finally {
		await Promise.all([hanging.close(), healthy.close()]);
		await server.stop();
	}
}

export async function webhookFairnessBench(): Promise<void> {
	heading("Webhook fairness: another organization's event while one has 1,000 deliveries to hanging receivers");
	const rows: string[][] = [];
	const sqlite = tempSqlite();
	try {
		rows.push(await oneDatabase('SQLite', sqlite.databaseUrl));
	} finally {
		await sqlite.remove();
	}
	const pg = await tempPostgres();
	try {
		rows.push(await oneDatabase('PostgreSQL', pg.databaseUrl));
	} finally {
		await pg.remove();
	}
	console.log(table(['database', 'hanging deliveries', `p50 (${SAMPLES} changes)`, 'p95', 'max', `p95 ≤ ${TARGET_MS} ms`], rows));
}
