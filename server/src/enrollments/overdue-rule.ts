import { Op } from 'sequelize';

import { epochMs } from '../common/time';
import type { EnrollmentRow } from './queries';

/*
 * SPEC §17's "overdue", the one definition: an active enrollment whose deadline has passed (at
 * `now`, the moment of the answer). The same rule in the three forms its readers need: a function
 * for a row in hand (the serializer, a write deciding whether the event is owed), an SQL fragment
 * for hand-written queries (lists, reports, Settings → Compliance) and a Sequelize condition for
 * the sweep. Keep the three together: a change to one is a change to all.
 */

export function isOverdue({ status, dueAt }: Pick<EnrollmentRow, 'status' | 'dueAt'>, now = Date.now()): boolean {
	return status === 'active' && dueAt !== null && epochMs(dueAt) <= now;
}

/**
 * The rule as SQL over an enrollments row (`alias` its table's name in the query, if any); `now`
 * is the SQL of the moment, a bound parameter (db.storedTime on hand-written reads). Never null,
 * so `NOT (…)` is "not overdue". The partial index of owed deadlines (0014) is picked up by
 * exactly these terms.
 */
export function overdueSql(now: string, alias?: string): string {
	const column = (name: string) => (alias === undefined ? name : `${alias}.${name}`);
	return `${column('status')} = 'active' AND ${column('due_at')} IS NOT NULL AND ${column('due_at')} <= ${now}`;
}

/** The rule as a Sequelize condition on the Enrollment model. */
export function overdueWhere(now: Date) {
	return { status: 'active', dueAt: { [Op.ne]: null, [Op.lte]: now } } as const;
}
