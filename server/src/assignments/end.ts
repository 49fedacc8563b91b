import type { Transaction } from 'sequelize';

import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { withdrawAssigned } from '../enrollments/assigned';

/**
 * Ends a group's assignments inside the group's deletion, as if every member left: those with
 * `on_removal: withdraw` withdraw the active enrollments they made; the rest of their enrollments stay.
 */
export async function endAssignmentsOf(transaction: Transaction, groupId: string, now: Date): Promise<void> {
	const db = database();
	const assignments = await db.rows<{ id: string; on_removal: string }>('SELECT id, on_removal FROM assignments WHERE group_id = $1', [groupId], transaction);
	await withdrawAssigned(
		transaction,
		assignments.filter((a) => a.on_removal === 'withdraw').map((a) => a.id),
		undefined,
		now,
	);
	await db.run('DELETE FROM assignments WHERE group_id = $1', [groupId], transaction);
}

/**
 * Ends one assignment (DELETE /assignments/{id}): nothing more is enrolled by it, and the
 * enrollments it made stay as they are (with their assignment_id). A batch being applied holds the
 * row, so the deletion waits for it. Returns false for no such assignment.
 */
export async function deleteAssignment(organizationId: string, id: string): Promise<boolean> {
	const db = database();
	return writeTransaction(db, async (transaction) => {
		const deleted = await db.rows<{ id: string }>('DELETE FROM assignments WHERE id = $1 AND organization_id = $2 RETURNING id', [id, organizationId], transaction);
		return deleted.length > 0;
	});
}
