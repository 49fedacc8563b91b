import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { Enrollment } from './model';
import { recordOverdueEvents } from './overdue';
import { overdueWhere } from './overdue-rule';

/**
 * Deadlines settled per transaction. A batch costs a handful of statements whatever its size
 * (events/record.ts), so this only bounds how long one holds SQLite's write lock, the rows it
 * locks on PostgreSQL and how long the feed holds back behind it (events/feed.ts): at 500, a few
 * hundred milliseconds at most even on a 2-core machine at load 15, while the sweep still records
 * thousands per second (docs/benchmarks.md, "Deadlines passing at once").
 */
const BATCH = 500;

/**
 * Records `enrollment.overdue` for every active enrollment whose deadline has passed and is still
 * owed its event; returns how many. Every instance runs it: a pass claims its batch with
 * SELECT … FOR UPDATE SKIP LOCKED on PostgreSQL (rows another instance, or a PATCH, holds are
 * left to it), and SQLite's write transactions take turns, so two passes never settle the same
 * deadline. The claim reads the partial index of owed deadlines (0014 migration) only.
 */
export async function sweepOverdue(now = new Date()): Promise<number> {
	const owed = { ...overdueWhere(now), overdueNotifiedAt: null };
	// Most passes find nothing: one read, and no write transaction (on SQLite, no write lock).
	if ((await Enrollment.findOne({ where: owed, attributes: ['id'] })) === null) return 0;
	let settled = 0;
	for (;;) {
		const claimed = await writeTransaction(database(), async (transaction) => {
			const due = await Enrollment.findAll({
				where: owed,
				order: [['dueAt', 'ASC']],
				limit: BATCH,
				transaction,
				lock: transaction.LOCK.UPDATE,
				skipLocked: true,
			});
			if (due.length === 0) return 0;
			// The claim: one statement marks the batch; the events then commit with the mark.
			// Not a change the API shows, so updated_at stays.
			await Enrollment.update({ overdueNotifiedAt: now }, { where: { id: due.map((e) => e.id) }, transaction, silent: true });
			await recordOverdueEvents(due, transaction, now);
			return due.length;
		});
		settled += claimed;
		if (claimed < BATCH) return settled;
	}
}
