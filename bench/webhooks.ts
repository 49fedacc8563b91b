/**
 * Webhooks (SPEC §12), on SQLite and on PostgreSQL, against a real `lms-server start` and real
 * receivers on 127.0.0.1:
 * 1. Latency: one change at a time (PATCH progress → enrollment.progressed), time from sending
 *    the PATCH to the delivery reaching the receiver. That bounds commit → receiver from above
 *    (the commit happens inside the PATCH). Baseline in the same run: a bare POST of the same
 *    size from this process to the receiver. Target: p50 ≤ 200 ms.
 * 2. Volume: 1,000 events (20 enrollments × 50 progress changes, 20 at a time) to 3 endpoints:
 *    every receiver must get each event exactly once. Time from the first PATCH to the last
 *    delivery.
 */
import { fmt, heading, lmsCli, median, startLms, table, tempPostgres, tempSqlite } from './lib';
import { startReceiver, type Receiver } from '../test/helpers/receiver';

const LATENCY_SAMPLES = 50;
const CHAINS = 20;
const STEPS = 50;
const LATENCY_TARGET_MS = 200;

export async function api(baseUrl: string, key: string, path: string, init: { method?: string; body?: unknown } = {}) {
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

/** `count` new active enrollments of acme, through the API. */
export async function newEnrollments(baseUrl: string, key: string, count: number): Promise<string[]> {
	const students = (await api(baseUrl, key, '/api/v1/users?role=student&per_page=100')).data as Array<{ id: string }>;
	const courses = (await api(baseUrl, key, '/api/v1/courses?per_page=100')).data as Array<{ id: string }>;
	const ids: string[] = [];
	for (const course of courses) {
		for (const student of students) {
			if (ids.length === count) return ids;
			const res = await fetch(`${baseUrl}/api/v1/enrollments`, {
				method: 'POST',
				headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
				body: JSON.stringify({ student_id: student.id, course_id: course.id }),
			});
			if (res.status === 201) ids.push(((await res.json()) as { id: string }).id);
			else await res.text();
		}
	}
	return ids;
}

async function oneDatabase(label: string, databaseUrl: string): Promise<string[]> {
	await lmsCli(['seed', '--demo', '--json'], { DATABASE_URL: databaseUrl });
	const { key } = JSON.parse(
		await lmsCli(['keys', 'create', '--org', 'acme', '--label', 'bench', '--scopes', 'read:users,read:courses,read:enrollments,write:enrollments,manage:webhooks', '--json'], {
			DATABASE_URL: databaseUrl,
		}),
	) as { key: string };
	const server = await startLms({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' });
	const receivers: Receiver[] = [];
	try {
		const enrollments = await newEnrollments(server.baseUrl, key, CHAINS + 1);

		// 1. Latency, one change at a time.
		const latencyReceiver = await startReceiver();
		receivers.push(latencyReceiver);
		const latencyEndpoint = await api(server.baseUrl, key, '/api/v1/webhook_endpoints', {
			method: 'POST',
			body: { url: latencyReceiver.url, events: ['enrollment.progressed'] },
		});
		const latencies: number[] = [];
		const baseline: number[] = [];
		const sample = enrollments[CHAINS];
		for (let i = 1; i <= LATENCY_SAMPLES; i++) {
			const sent = performance.now();
			await api(server.baseUrl, key, `/api/v1/enrollments/${sample}`, { method: 'PATCH', body: { progress_percent: i } });
			await latencyReceiver.waitFor(i);
			latencies.push(performance.now() - sent);
			const body = latencyReceiver.received[i - 1].body;
			const bare = performance.now();
			await fetch(latencyReceiver.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text());
			baseline.push(performance.now() - bare);
			// The bare POSTs land on the same receiver: keep its count in step.
			latencyReceiver.received.splice(i, 1);
		}
		await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${latencyEndpoint.id}`, { method: 'DELETE' });

		// 2. Volume: 1,000 events to 3 endpoints.
		const volume = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
		receivers.push(...volume);
		for (const receiver of volume) {
			await api(server.baseUrl, key, '/api/v1/webhook_endpoints', { method: 'POST', body: { url: receiver.url, events: ['enrollment.progressed'] } });
		}
		const started = performance.now();
		await Promise.all(
			enrollments.slice(0, CHAINS).map(async (id) => {
				for (let step = 1; step <= STEPS; step++) {
					await api(server.baseUrl, key, `/api/v1/enrollments/${id}`, { method: 'PATCH', body: { progress_percent: step } });
				}
			}),
		);
		const events = CHAINS * STEPS;
		await Promise.all(volume.map((r) => r.waitFor(events, 120_000)));
		const elapsed = performance.now() - started;
		await new Promise((resolve) => setTimeout(resolve, 2000));
		const verdicts = volume.map((r) => {
			const ids = r.received.map((x) => String(x.headers['lms-event-id']));
			return { received: ids.length, distinct: new Set(ids).size };
		});
		const exact = verdicts.every((v) => v.received === events && v.distinct === events);
		const p50 = median(latencies);
		return [
			label,
			`${fmt.ms(p50)} ms`,
			`${fmt.ms(median(baseline))} ms`,
			p50 <= LATENCY_TARGET_MS ? 'met' : 'MISSED',
			verdicts.map((v) => `${v.received}/${v.distinct}`).join(', '),
			exact ? 'none lost, none doubled' : 'MISSED',
			`${(elapsed / 1000).toFixed(1)} s`,
		];
	} finally {
		await Promise.all(receivers.map((r) => r.close()));
		await server.stop();
	}
}

export async function webhooksBench(): Promise<void> {
	heading('Webhooks: commit → receiver latency, 1,000 events to 3 endpoints');
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
	console.log(
		table(
			['database', `latency p50 (PATCH sent → delivered, ${LATENCY_SAMPLES} samples)`, 'baseline: bare POST to the receiver', `≤ ${LATENCY_TARGET_MS} ms`, '1,000 events: received/distinct per endpoint', 'exactly once', '1,000 events delivered in'],
			rows,
		),
	);
}
