import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
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
		const ids = (await db.read<{ id: string }>(EXPIRED_EVENTS(db), [cutoff, BATCH])).map((r) => r.id);
		if (ids.length === 0) return removed;
		const through = ids.reduce((a, b) => (a > b ? a : b));
		await writeTransaction(db, async (transaction) => {
			await db.run(deleteEvents(ids), ids, transaction);
			await db.run(RECORD_PRUNE(db), [through, now.toISOString()], transaction);
		});
		removed += ids.length;
	}
}
