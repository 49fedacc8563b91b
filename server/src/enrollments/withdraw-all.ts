import type { Transaction } from 'sequelize';

import { changeLocked } from './change';
import { Enrollment } from './model';

/**
 * Withdraws every active enrollment of a student, inside the caller's transaction (a user's
 * deactivation, users/change.ts), each through the one enrollment change with its own
 * `enrollment.withdrawn`. Rows are locked in id order, so two such runs cannot deadlock.
 * Returns the enrollments withdrawn.
 */
export async function withdrawAllOf(studentId: string, transaction: Transaction, now: Date): Promise<Enrollment[]> {
	const active = await Enrollment.findAll({
		where: { studentId, status: 'active' },
		order: [['id', 'ASC']],
		transaction,
		lock: transaction.LOCK.UPDATE,
	});
	for (const enrollment of active) await changeLocked(enrollment, { status: 'withdrawn' }, transaction, now);
	return active;
}
