import type { Transaction } from 'sequelize';

import { issueCertificate } from '../certificates/issue';
import { isIdOf } from '../common/id-shapes';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { recordEvent } from '../events/record';
import type { EventType } from '../events/types';
import { User } from '../users/model';
import { userDeactivated } from './enroll';
import { Enrollment, type EnrollmentStatus } from './model';
import { recordOverdueIfOwed, sameInstant, setDueAt } from './overdue';
import { serializeEnrollment } from './serialize';

/** What a caller asks for: SPEC §10's `{ status?, progress_percent? }`. */
export interface EnrollmentChange {
	/** `expired` only from the operator's console; the API refuses it before it gets here. */
	status?: EnrollmentStatus;
	progress?: number;
	/** A new deadline; null clears it; undefined leaves it (SPEC §17). */
	dueAt?: Date | null;
}

type Step = 'progress' | 'complete' | 'withdraw' | 'expire' | 'reactivate';

const EVENT_OF: Record<Step, EventType> = {
	progress: 'enrollment.progressed',
	complete: 'enrollment.completed',
	withdraw: 'enrollment.withdrawn',
	expire: 'enrollment.expired',
	reactivate: 'enrollment.reactivated',
};

/** The status the request leads to: progress 100 completes; other progress keeps the status. */
function targetOf(from: EnrollmentStatus, { status, progress }: EnrollmentChange): EnrollmentStatus {
	if (status === undefined && progress === undefined) return from;
	if (status === 'completed' || (progress === 100 && status === undefined) || (progress === 100 && status === 'active')) {
		return 'completed';
	}
	if (status !== undefined) return status;
	return from === 'completed' ? 'active' : from;
}

/** The progress asked for does not fit the status asked for (the field is named for the caller). */
function invalidChange(message: string): RuleError {
	return new RuleError('invalid_change', message, { field: 'progress_percent' });
}

/** Requests that contradict themselves, whatever the enrollment's state. */
function refuseContradictions({ status, progress }: EnrollmentChange): void {
	if (status === 'completed' && progress !== undefined && progress !== 100) {
		throw invalidChange('progress_percent must be 100, or left out, when status is completed.');
	}
	if ((status === 'withdrawn' || status === 'expired') && progress === 100) {
		throw invalidChange(`progress_percent 100 completes the enrollment; leave it out to make it ${status}.`);
	}
}

/**
 * SPEC §10's transition table: which step takes `from` to `to`, nothing when the request
 * changes nothing (safe to retry), or refuses with invalid_transition.
 */
function stepOf(enrollment: Enrollment, to: EnrollmentStatus, progress: number | undefined): Step | undefined {
	const from = enrollment.status;
	const progressChanges = progress !== undefined && progress !== enrollment.progressPercent;
	if (from === to) {
		if (!progressChanges) return undefined;
		if (from === 'active') return 'progress';
		throw invalidTransition(from, to, `the progress of a ${from} enrollment cannot change; reactivate it first with status active.`);
	}
	if (from === 'completed') throw invalidTransition(from, to, 'a completed enrollment is final.');
	if (from === 'active') return ({ completed: 'complete', withdrawn: 'withdraw', expired: 'expire' } as const)[to as 'completed'];
	if (to === 'active') return 'reactivate';
	throw invalidTransition(from, to, `only an active enrollment can become ${to}; reactivate it first with status active.`);
}

function invalidTransition(from: EnrollmentStatus, to: EnrollmentStatus, reason: string): RuleError {
	return new RuleError('invalid_transition', `An enrollment cannot go from ${from} to ${to}: ${reason}`, { from, to, reason });
}

/**
 * Applies one change to an enrollment, with its events, in one transaction. The row is locked
 * (SELECT … FOR UPDATE on PostgreSQL; SQLite's write transactions are serial anyway), so of
 * concurrent completions one completes and the others find it completed and change nothing.
 * `organizationId` scopes the lookup (the API); the operator's console passes none.
 */
export async function changeEnrollment(organizationId: string | undefined, id: string, change: EnrollmentChange): Promise<Enrollment> {
	refuseContradictions(change);
	if (!isIdOf('enrollment', id)) throw enrollmentNotFound(id);
	return writeTransaction(database(), async (transaction) => {
		const enrollment = await Enrollment.findOne({
			where: { id, ...(organizationId === undefined ? {} : { organizationId }) },
			transaction,
			lock: transaction.LOCK.UPDATE,
		});
		if (!enrollment) throw enrollmentNotFound(id);
		await changeLocked(enrollment, change, transaction);
		return enrollment;
	});
}

/**
 * Applies one change to an enrollment already locked in `transaction`, with its events: the
 * part of changeEnrollment that a larger change reuses (a user's deactivation withdraws each of
 * their active enrollments this way, users/change.ts).
 */
export async function changeLocked(enrollment: Enrollment, change: EnrollmentChange, transaction: Transaction, now = new Date()): Promise<void> {
	refuseContradictions(change);
	const to = targetOf(enrollment.status, change);
	const dueChanges = change.dueAt !== undefined && !sameInstant(change.dueAt, enrollment.dueAt);
	if (dueChanges && (enrollment.status === 'completed' || to === 'completed')) throw dueOnCompleted(enrollment.status);
	const step = stepOf(enrollment, to, change.progress);
	if (step === undefined && !dueChanges) return;
	if (step === 'reactivate') await refuseDeactivatedStudent(enrollment.studentId, transaction);
	if (dueChanges) setDueAt(enrollment, change.dueAt!, now);
	if (step === undefined) await enrollment.save({ transaction });
	else await apply(enrollment, step, to, change.progress, transaction, now);
	// A deadline already past, or an enrollment active again after it: overdue now, told now.
	await recordOverdueIfOwed(enrollment, transaction, now);
}

/**
 * A deactivated user's enrollments stay as they are (SPEC §16): none becomes active again
 * until the user is reactivated. The user's row is read with a share lock, so a deactivation
 * running now either committed before (and is seen) or waits for this change and withdraws it.
 */
async function refuseDeactivatedStudent(studentId: string, transaction: Transaction): Promise<void> {
	const student = await User.findOne({ where: { id: studentId }, attributes: ['id', 'status'], transaction, lock: transaction.LOCK.SHARE });
	if (student?.status === 'deactivated') throw userDeactivated();
}

/**
 * A completed enrollment's deadline is part of its record (was it done in time?): it cannot be
 * set, moved or cleared, nor given with the request that completes it.
 */
function dueOnCompleted(from: EnrollmentStatus): RuleError {
	return new RuleError(
		'due_date_on_completed',
		from === 'completed'
			? 'The enrollment is completed, so its due_at can no longer change; leave due_at out.'
			: 'An enrollment cannot be completed and given a due_at in one request; leave due_at out.',
		{ field: 'due_at', status: from },
	);
}

function enrollmentNotFound(id: string): RuleError {
	return new RuleError('not_found', `No enrollment ${id}.`, { what: 'enrollment' });
}

async function apply(enrollment: Enrollment, step: Step, to: EnrollmentStatus, progress: number | undefined, transaction: Transaction, now: Date) {
	enrollment.status = to;
	if (step === 'complete') {
		enrollment.progressPercent = 100;
		enrollment.completedAt = now;
	} else if (progress !== undefined) {
		enrollment.progressPercent = progress;
	}
	await enrollment.save({ transaction });
	const event = { organizationId: enrollment.organizationId, at: now };
	await recordEvent(transaction, { ...event, type: EVENT_OF[step], object: serializeEnrollment(enrollment) });
	if (step === 'complete') await issueCertificate(enrollment, now, transaction);
}
