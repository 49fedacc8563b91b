import { setTimeout as rest } from 'node:timers/promises';

import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { enrollAssigned } from '../enrollments/assigned';
import { assignedCourse, MEMBERS_AFTER, NEXT_UNAPPLIED, type Unapplied } from './queries';

/**
 * Members handled per transaction. A batch is three statements whatever its size (the members,
 * the enrollments with their events, the cursor), so this bounds how long one holds SQLite's write
 * lock and PostgreSQL's row locks, how long the feed holds back behind it, and how long a request
 * arriving meanwhile waits for the event loop (a batch builds its enrollments' events in it).
 */
const APPLY_BATCH = 200;

/**
 * After each batch the applier rests as long as the batch took, up to this: back to back, batches
 * of 500 kept the API's p50 at 2.20× idle on PostgreSQL at load 8–10 (SPEC §20 allows 2×); at half
 * the time, 10,000 members still take far less than the 60 s allowed (docs/benchmarks.md).
 */
const MAX_REST_MS = 1000;

/** How often each instance looks for assignments to apply (a read of a partial index that is empty when there are none). */
export const APPLY_EVERY_MS = 1000;

/**
 * Applies one batch of the oldest assignment still being applied: enrolls its group's next
 * members after the cursor (`applied_through`, the last user id handled), advances the cursor in
 * the same transaction, and sets `applied_at` when the members run out. A kill -9 rolls back the
 * batch in flight and the next pass, on any instance, resumes from the last commit; the row lock
 * (NEXT_UNAPPLIED) keeps two instances off the same assignment, and the (student, course) unique
 * index would refuse a second enrollment anyway. Returns false when nothing is left to apply.
 */
async function applyBatch(batch = APPLY_BATCH): Promise<boolean> {
	const db = database();
	return writeTransaction(db, async (transaction) => {
		const [assignment] = await db.rows<Unapplied>(NEXT_UNAPPLIED(db), [], transaction);
		if (!assignment) return false;
		const members = await db.rows<{ user_id: string }>(MEMBERS_AFTER(db), [assignment.group_id, assignment.applied_through ?? '', batch], transaction);
		const userIds = members.map((m) => m.user_id);
		const now = new Date();
		await enrollAssigned(transaction, [assignedCourse(assignment)], userIds, now);
		const cursor = userIds.at(-1) ?? assignment.applied_through;
		const done = userIds.length < batch;
		await db.run(
			`UPDATE assignments SET applied_through = $2, applied_at = ${done ? db.storedTime('$3') : 'NULL'} WHERE id = $1`,
			done ? [assignment.id, cursor, now.toISOString()] : [assignment.id, cursor],
			transaction,
		);
		return true;
	});
}

/** Applies batches until none is left or the server stops (one pass of the periodic job, jobs/table.ts). */
export async function applyAssignments(stopping?: AbortSignal): Promise<void> {
	// Most passes find nothing: one read of the partial index of assignments being applied, no write transaction.
	const [pending] = await database().rows<{ id: string }>('SELECT id FROM assignments WHERE applied_at IS NULL LIMIT 1');
	if (!pending) return;
	while (!stopping?.aborted) {
		const started = performance.now();
		if (!(await applyBatch())) return;
		await rest(Math.min(MAX_REST_MS, performance.now() - started), undefined, { signal: stopping }).catch(() => undefined);
	}
}

const wakers = new Set<() => void>();

/** Starts a pass now rather than at the next beat, in this process (a new assignment). */
export function wakeApplier(): void {
	for (const wake of wakers) wake();
}

/** The job's wake signal (jobs/job.ts wakeOn): a new assignment is applied at once, not at the next beat. */
export function onNewAssignment(wake: () => void): () => void {
	wakers.add(wake);
	return () => wakers.delete(wake);
}
