import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { pruneIdempotencyKeys } from '../idempotency/retention';
import { pruneDeliveries } from '../webhooks/retention';
import { deleteEvents, EXPIRED_EVENTS, RECORD_PRUNE } from './queries';

const DAY_MS = 24 * 3_600_000;
/** Small batches keep each delete short (on SQLite it holds the one write lock). */
const BATCH = 500;

/**
 * Removes events older than `retentionDays` (by created_at), and records the highest id
 * removed: a cursor at or below it answers 410 cursor_expired rather than 400. Safe to run on
 * several instances at once (deleting what is gone is a no-op; each run records its own mark).
 * Returns how many events it removed.
 */
export async function pruneEvents(retentionDays: number, now = new Date()): Promise<number> {
	const db = database();
	const cutoff = new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
	let removed = 0;
	for (;;) {
		const ids = (await db.rows<{ id: string }>(EXPIRED_EVENTS(db), [cutoff, BATCH])).map((r) => r.id);
		if (ids.length === 0) return removed;
		const through = ids.reduce((a, b) => (a > b ? a : b));
		await writeTransaction(db, async (transaction) => {
			await db.run(deleteEvents(ids), ids, transaction);
			await db.run(RECORD_PRUNE(db), [through, now.toISOString()], transaction);
		});
		removed += ids.length;
	}
}

/** How often each instance prunes. Retention is in days; an hour late is within "at least". */
export const PRUNE_EVERY_MS = 3_600_000;

/** Prunes now and then every hour until stopped; failures are logged and retried next time. */
export function schedulePruning(
	retentionDays: number,
	onError: (err: unknown) => void,
): { stop(): Promise<void> } {
	let running: Promise<unknown> = Promise.resolve();
	const run = () => {
		// Webhook deliveries of removed events go with them (webhooks/retention.ts); idempotency
		// keys past their 24 hours go too (an expired key already counts as absent).
		running = pruneEvents(retentionDays)
			.then(() => pruneDeliveries(retentionDays))
			.then(() => pruneIdempotencyKeys())
			.catch(onError);
	};
	run();
	const timer = setInterval(run, PRUNE_EVERY_MS);
	timer.unref();
	return {
		async stop() {
			clearInterval(timer);
			await running;
		},
	};
}
