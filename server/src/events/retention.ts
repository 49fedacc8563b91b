import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { OLD_IDS } from './ids';
import { deleteEvents, EXPIRED_EVENTS, RECORD_PRUNE } from './queries';

const DAY_MS = 24 * 3_600_000;
/** Small batches keep each delete short (on SQLite it holds the one write lock). */
const BATCH = 500;

/**
 * The highest id of each organization among `ids` (an organization's numbered ids share their
 * first 16 characters, events/ids.ts), and of the ids made before numbering, as one more: a mark
 * per organization lets its numbers go on after its last events are removed, and lets a cursor be
 * judged against its own organization's removals only.
 */
function highestOfEach(ids: readonly string[]): string[] {
	const highest = new Map<string, string>();
	for (const id of ids) {
		const owner = id < OLD_IDS[1] ? 'old' : id.slice(0, 'evt_'.length + 12);
		if ((highest.get(owner) ?? '') < id) highest.set(owner, id);
	}
	return [...highest.values()];
}

/**
 * Removes events older than `retentionDays` (by created_at), and records the highest id
 * removed of each organization: a cursor at or below it answers 410 cursor_expired rather than 400. Safe to run on
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
		await writeTransaction(db, async (transaction) => {
			await db.run(deleteEvents(ids), ids, transaction);
			for (const through of highestOfEach(ids)) await db.run(RECORD_PRUNE(db), [through, now.toISOString()], transaction);
		});
		removed += ids.length;
	}
}
