import type { Transaction } from 'sequelize';

import { isIdOf } from '../common/id-shapes';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { recordEvents } from '../events/record';
import { assignmentsOfGroup } from '../assignments/queries';
import { enrollAssigned, withdrawAssigned } from '../enrollments/assigned';
import { COUNT_MEMBERS, DELETE_MEMBERS, GROUP_LOCKED, INSERT_MEMBERS, USERS_OF, type GroupRow } from './queries';

/** Most user ids one change of members takes (SPEC §20). */
export const MEMBERS_PER_CHANGE = 1000;

/**
 * The group and the users a membership change names, checked inside its transaction: the group
 * locked (GROUP_LOCKED), every id a user of the organization. An unknown id refuses the whole
 * change, naming every such id, before anything is written.
 */
async function lockAndCheck(transaction: Transaction, organizationId: string, groupId: string, userIds: readonly string[]): Promise<{ group: GroupRow; ids: string[] }> {
	const db = database();
	if (userIds.length > MEMBERS_PER_CHANGE) throw new RuleError('too_many_members', `Give at most ${MEMBERS_PER_CHANGE} user ids per request; split the list.`);
	const [group] = isIdOf('group', groupId) ? await db.rows<GroupRow>(GROUP_LOCKED(db), [groupId, organizationId], transaction) : [];
	if (!group) throw new RuleError('not_found', 'No such group in the organization.', { what: 'group' });
	const ids = [...new Set(userIds)];
	const shaped = ids.filter((id) => isIdOf('user', id));
	const known = new Set((shaped.length === 0 ? [] : await db.rows<{ id: string }>(USERS_OF(db), [organizationId, JSON.stringify(shaped)], transaction)).map((u) => u.id));
	const unknown = ids.filter((id) => !known.has(id));
	if (unknown.length > 0) {
		const shown = unknown.slice(0, 10).join(', ') + (unknown.length > 10 ? ` and ${unknown.length - 10} more` : '');
		throw new RuleError('user_not_found', `No user of the organization has ${unknown.length === 1 ? 'this id' : 'these ids'}: ${shown}. Nothing was changed.`, {
			userIds: unknown.join(','),
		});
	}
	return { group, ids };
}

/**
 * Adds users to a group: the one way in for every door (API, CLI, SCIM). In one transaction:
 * the memberships (a user already a member is `unchanged`), `member_count`, one
 * `group.member_added` per user added, and the enrollments the group's assignments owe each new
 * member (enrollments/assigned.ts: active students only, not already enrolled), in one
 * statement whatever the number of assignments. Of two concurrent adds of the same user, the
 * primary key lets one in: one `added`, one `unchanged`, one event.
 */
export async function addMembers(organizationId: string, groupId: string, userIds: readonly string[]): Promise<{ added: string[]; unchanged: string[] }> {
	const db = database();
	return writeTransaction(db, async (transaction) => {
		const { ids } = await lockAndCheck(transaction, organizationId, groupId, userIds);
		if (ids.length === 0) return { added: [], unchanged: [] };
		const now = new Date();
		const inserted = new Set((await db.rows<{ user_id: string }>(INSERT_MEMBERS(db), [groupId, organizationId, JSON.stringify(ids), now.toISOString()], transaction)).map((r) => r.user_id));
		const added = ids.filter((id) => inserted.has(id));
		if (added.length > 0) {
			await db.run(COUNT_MEMBERS(db), [groupId, added.length, now.toISOString()], transaction);
			await recordEvents(
				transaction,
				added.map((userId) => ({ organizationId, type: 'group.member_added' as const, object: { group_id: groupId, user_id: userId }, at: now })),
			);
			await enrollAssigned(transaction, await assignmentsOfGroup(transaction, groupId), added, now);
		}
		return { added, unchanged: ids.filter((id) => !inserted.has(id)) };
	});
}

/**
 * Removes users from a group, in one transaction: the memberships (a user who was not a member
 * is `unchanged`), `member_count`, one `group.member_removed` per user removed, and for each of
 * the group's assignments with `on_removal: withdraw`, the active enrollments it made for them.
 */
export async function removeMembers(organizationId: string, groupId: string, userIds: readonly string[]): Promise<{ removed: string[]; unchanged: string[] }> {
	const db = database();
	return writeTransaction(db, async (transaction) => {
		const { ids } = await lockAndCheck(transaction, organizationId, groupId, userIds);
		if (ids.length === 0) return { removed: [], unchanged: [] };
		const now = new Date();
		const deleted = new Set((await db.rows<{ user_id: string }>(DELETE_MEMBERS(db), [groupId, JSON.stringify(ids)], transaction)).map((r) => r.user_id));
		const removed = ids.filter((id) => deleted.has(id));
		if (removed.length > 0) {
			await db.run(COUNT_MEMBERS(db), [groupId, -removed.length, now.toISOString()], transaction);
			await recordEvents(
				transaction,
				removed.map((userId) => ({ organizationId, type: 'group.member_removed' as const, object: { group_id: groupId, user_id: userId }, at: now })),
			);
			const withdrawing = (await assignmentsOfGroup(transaction, groupId)).filter((a) => a.onRemoval === 'withdraw').map((a) => a.assignmentId);
			await withdrawAssigned(transaction, withdrawing, removed, now);
		}
		return { removed, unchanged: ids.filter((id) => !deleted.has(id)) };
	});
}
