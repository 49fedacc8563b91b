import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import { database } from '../db';
import { PENDING_DELIVERIES } from './queries';

/**
 * What GET /metrics shows (SPEC §19), one registry per process. Counters are counted where the
 * thing happens (http/metrics.ts, the limiters, the webhook worker); gauges that describe the
 * database are read when Prometheus scrapes, so an idle server does no work for them.
 * Labels never name a caller, a key or an address: route patterns, statuses and outcomes only,
 * a bounded set. docs/operating.md lists the alerts to set on them.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'lms_process_' });

export const httpRequests = new Counter({
	name: 'lms_http_requests_total',
	help: 'HTTP requests answered, by method, route pattern ("none": no route matched, e.g. refused by the per-IP limit or not found) and status.',
	labelNames: ['method', 'route', 'status'] as const,
	registers: [registry],
});

export const httpDuration = new Histogram({
	name: 'lms_http_request_duration_seconds',
	help: 'Time from a request arriving to its answer being sent, by method, route pattern and status.',
	labelNames: ['method', 'route', 'status'] as const,
	buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
	registers: [registry],
});

export const throttled = new Counter({
	name: 'lms_throttled_requests_total',
	help: 'Requests refused by a limit: "api" (the per-IP request limit, 429), "scim" (the per-key SCIM limit, 429) or "sign_in" (the sign-in throttle, 429).',
	labelNames: ['limit'] as const,
	registers: [registry],
});

export const oldKeyRequests = new Counter({
	name: 'lms_api_old_key_requests_total',
	help: 'API requests made with a rotated key in its grace time (rotation with expire_old_after): clients that still have to switch to the new key. The access log names the key (api_key_id, old_key: true); the key list shows its last use.',
	registers: [registry],
});

export const webhookDeliveries = new Counter({
	name: 'lms_webhook_deliveries_total',
	help: 'Webhook delivery attempts by outcome: "delivered" (2xx), "retrying" (failed, another attempt is scheduled), "failed" (given up, or not sendable any more).',
	labelNames: ['outcome'] as const,
	registers: [registry],
});

export const jobLastRun = new Gauge({
	name: 'lms_job_last_run_timestamp_seconds',
	help: 'When the background job\'s last pass ended (Unix time), by job (jobs/table.ts): a job that stopped running shows as a stale time.',
	labelNames: ['job'] as const,
	registers: [registry],
});

export const jobDuration = new Histogram({
	name: 'lms_job_duration_seconds',
	help: 'How long each pass of a background job took, by job.',
	labelNames: ['job'] as const,
	buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 2.5, 10, 60, 300],
	registers: [registry],
});

export const jobErrors = new Counter({
	name: 'lms_job_errors_total',
	help: 'Passes of a background job that failed (logged; the next pass retries), by job.',
	labelNames: ['job'] as const,
	registers: [registry],
});

/** The pending deliveries and the oldest due one, read once per scrape for both gauges. */
async function pendingDeliveries(): Promise<{ pending: number; oldestDue: Date | null }> {
	const db = database();
	const [row] = await db.read<{ pending: number | string; oldest: string | null }>(PENDING_DELIVERIES(db));
	return { pending: Number(row?.pending ?? 0), oldestDue: row?.oldest ? new Date(row.oldest) : null };
}

const secondsSince = (date: Date | null) => (date ? Math.max(0, (Date.now() - date.getTime()) / 1000) : 0);

new Gauge({
	name: 'lms_webhook_deliveries_pending',
	help: 'Webhook deliveries waiting for a first attempt or a retry.',
	registers: [registry],
	async collect() {
		this.set((await pendingDeliveries()).pending);
	},
});

new Gauge({
	name: 'lms_webhook_oldest_due_seconds',
	help: 'How long the longest-waiting due delivery has been due (0 when none is): deliveries falling behind.',
	registers: [registry],
	async collect() {
		const { oldestDue } = await pendingDeliveries();
		this.set(oldestDue && oldestDue.getTime() < Date.now() ? secondsSince(oldestDue) : 0);
	},
});

// Events are numbered as they commit (events/queries.ts), so the feed serves every committed
// event at once and holds nothing back: always 0, kept for the dashboards that read it.
new Gauge({
	name: 'lms_event_feed_lag_seconds',
	help: 'Age of the oldest committed event the feed does not serve yet: always 0, since events are numbered as they commit.',
	registers: [registry],
}).set(0);

new Gauge({
	name: 'lms_db_pool_connections',
	help: 'Database connections: "open" (idle or busy), "max" (DATABASE_POOL_MAX; SQLite has one connection and no pool).',
	labelNames: ['state'] as const,
	registers: [registry],
	collect() {
		const { pool } = database();
		this.set({ state: 'open' }, pool.connections());
		this.set({ state: 'max' }, pool.max);
	},
});

new Gauge({
	name: 'lms_db_pool_waiting',
	help: 'Requests waiting for a database connection of the write pool.',
	registers: [registry],
	collect() {
		this.set(database().pool.waiters());
	},
});
