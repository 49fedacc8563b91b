import type { Transaction } from 'sequelize';

import type { Timestamp } from '../common/time';
import { database, type Database } from '../db';
import type { Table } from '../db/table';
import type { AssignedCourse } from '../enrollments/assigned';

export const ON_REMOVAL = ['keep', 'withdraw'] as const;
export type OnRemoval = (typeof ON_REMOVAL)[number];

/** An assignment as the API reads one (SPEC §20). */
export interface AssignmentRow {
	id: string;
	groupId: string;
	courseId: string;
	dueInDays: number | null;
	onRemoval: OnRemoval;
	appliedAt: Timestamp | null;
	createdAt: Timestamp;
}

export const ASSIGNMENTS: Table<AssignmentRow> = {
	name: 'assignments',
	columns: {
		id: 'id',
		groupId: 'group_id',
		courseId: 'course_id',
		dueInDays: 'due_in_days',
		onRemoval: 'on_removal',
		appliedAt: 'applied_at',
		createdAt: 'created_at',
	},
	dates: ['appliedAt', 'createdAt'],
};

const DAY_MS = 86_400_000;

/** The deadline an assignment gives: its creation + due_in_days; none when null. */
function dueAtOf(createdAt: Timestamp, dueInDays: number | null): Date | null {
	return dueInDays === null ? null : new Date(new Date(createdAt).getTime() + Number(dueInDays) * DAY_MS);
}

interface Assigned {
	id: string;
	organization_id: string;
	course_id: string;
	due_in_days: number | null;
	on_removal: OnRemoval;
	created_at: string;
}

/** A group's assignments as its joins and leaves apply them, read inside their transaction. */
export async function assignmentsOfGroup(transaction: Transaction, groupId: string): Promise<Array<AssignedCourse & { onRemoval: OnRemoval }>> {
	const db = database();
	const rows = await db.rows<Assigned>(
		`SELECT id, organization_id, course_id, due_in_days, on_removal, ${db.isoText('created_at')} AS created_at FROM assignments WHERE group_id = $1`,
		[groupId],
		transaction,
	);
	return rows.map(assignedCourse);
}

export const assignedCourse = (row: Assigned): AssignedCourse & { onRemoval: OnRemoval } => ({
	assignmentId: row.id,
	organizationId: row.organization_id,
	courseId: row.course_id,
	dueAt: dueAtOf(row.created_at, row.due_in_days),
	onRemoval: row.on_removal,
});

/**
 * The oldest assignment still being applied that no other transaction holds, with its cursor,
 * locked for this batch (FOR UPDATE SKIP LOCKED on PostgreSQL: two instances apply two different
 * assignments, or one waits for the next pass; SQLite's write transactions take turns).
 */
export const NEXT_UNAPPLIED = (db: Database) =>
	`SELECT id, organization_id, group_id, course_id, due_in_days, on_removal, ${db.isoText('created_at')} AS created_at, applied_through FROM assignments ` +
	`WHERE applied_at IS NULL ORDER BY created_at LIMIT 1${db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''}`;

export type Unapplied = Assigned & { group_id: string; applied_through: string | null };

/**
 * The next members of a group after the cursor, in user id order ($1 group, $2 cursor, $3 how
 * many), share-locked on PostgreSQL so that a leave committing meanwhile waits for this batch and
 * then withdraws what it made, rather than missing it.
 */
export const MEMBERS_AFTER = (db: Database) =>
	`SELECT user_id FROM group_members WHERE group_id = $1 AND user_id > $2 ORDER BY user_id LIMIT $3${db.dialect === 'postgres' ? ' FOR SHARE' : ''}`;
