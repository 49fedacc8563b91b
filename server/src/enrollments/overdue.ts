import type { Transaction } from 'sequelize';

import { recordEvents } from '../events/record';
import type { Enrollment } from './model';
import { isOverdue } from './overdue-rule';
import { serializeEnrollment } from './serialize';

/**
 * SPEC §17's `enrollment.overdue`: once per deadline, recorded in the transaction that marks the
 * enrollment notified (overdue_notified_at), so the mark and the event commit together or not at
 * all. Whoever finds the debt first pays it: a write that leaves an enrollment overdue (a late
 * assignment imported with a past due_at, a reactivation after the deadline) right away, the
 * sweep (enrollments/overdue-sweep.ts) for deadlines that pass on their own.
 */
export async function recordOverdueIfOwed(enrollment: Enrollment, transaction: Transaction, now = new Date()): Promise<boolean> {
	if (enrollment.overdueNotifiedAt !== null || !isOverdue(enrollment, now.getTime())) return false;
	enrollment.overdueNotifiedAt = now;
	// Not a change the API shows: updated_at stays where the last change put it.
	await enrollment.save({ transaction, silent: true });
	await recordOverdueEvents([enrollment], transaction, now);
	return true;
}

/** The events alone, in the list's order, for a caller that has marked the enrollments in the same transaction. */
export async function recordOverdueEvents(enrollments: readonly Enrollment[], transaction: Transaction, now: Date): Promise<void> {
	await recordEvents(
		transaction,
		enrollments.map((enrollment) => ({
			organizationId: enrollment.organizationId,
			type: 'enrollment.overdue' as const,
			object: serializeEnrollment(enrollment),
			at: now,
		})),
	);
}

/**
 * A new deadline. One in the future (or none) arms the event again; one still in the past keeps
 * what was recorded (moving a missed deadline to another missed one is not a second miss).
 */
export function setDueAt(enrollment: Enrollment, dueAt: Date | null, now = new Date()): void {
	enrollment.dueAt = dueAt;
	if (dueAt === null || dueAt.getTime() > now.getTime()) enrollment.overdueNotifiedAt = null;
}

export function sameInstant(a: Date | null, b: Date | null): boolean {
	return a === null || b === null ? a === b : a.getTime() === b.getTime();
}
