import type { Router } from 'express';

import { problems } from '../common/problem';
import type { Database } from '../db';
import { READY } from './queries';
import type { LimitStore } from './rate-limit-store';

const CHECK_TIMEOUT_MS = 3000;

function withTimeout(promise: Promise<unknown>): Promise<unknown> {
	return Promise.race([
		promise,
		new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
	]);
}

/**
 * Probes for orchestrators, mounted before the limiter so they never count against it:
 * `/healthz` says the process answers; `/readyz` says it can serve (database and limit store).
 */
export function healthRoutes(router: Pick<Router, 'get'>, db: Database, limitStore: LimitStore): void {
	router.get('/healthz', (_req, res) => {
		res.setHeader('Cache-Control', 'no-store');
		res.json({ status: 'ok' });
	});
	router.get('/readyz', async (_req, res) => {
		const [database, store] = await Promise.allSettled([
			withTimeout(db.read(READY)),
			withTimeout(limitStore.check()),
		]);
		const failing = [
			...(database.status === 'rejected' ? ['database'] : []),
			...(store.status === 'rejected' ? ['rate_limit_store'] : []),
		];
		if (failing.length > 0) throw problems.notReady(failing);
		res.setHeader('Cache-Control', 'no-store');
		res.json({ status: 'ready', checks: { database: 'ok', rate_limit_store: limitStore.kind } });
	});
}
