import { RuleError } from '../../common/rule-error';
import { database } from '../../db';
import { writeTransaction } from '../../db/write-transaction';
import { addMembers, MEMBERS_PER_CHANGE, removeMembers } from '../../groups/members';
import { GROUP_LOCKED, type GroupRow } from '../../groups/queries';
import { updateGroup } from '../../groups/write';
import { scimErrors } from '../errors';

/** Most member values one SCIM request may name (a PATCH's operations together, or a PUT's list). */
export const MEMBERS_PER_REQUEST = MEMBERS_PER_CHANGE;

/** What a PUT or PATCH asks of a group, in the domain's terms. */
export interface GroupChange {
	name?: string;
	externalId?: string | null;
	/** The member list becomes exactly this (a PUT, a PATCH replace or remove of `members`); else… */
	members?: string[];
	/** …these join and these leave. */
	add: Set<string>;
	remove: Set<string>;
}

export const noChange = (): GroupChange => ({ add: new Set(), remove: new Set() });

function inChunks(ids: string[]): string[][] {
	const chunks: string[][] = [];
	for (let i = 0; i < ids.length; i += MEMBERS_PER_CHANGE) chunks.push(ids.slice(i, i + MEMBERS_PER_CHANGE));
	return chunks;
}

/**
 * Applies a SCIM change to a group in one transaction, with the group locked from the start:
 * its fields through groups/write.ts, its members through groups/members.ts (the one way in and
 * out for every door: events, assignments and withdrawals in the same transaction). An unknown
 * user id anywhere refuses the whole request (400 invalidValue) and nothing changes.
 */
export async function changeGroup(organizationId: string, groupId: string, change: GroupChange): Promise<GroupRow> {
	const db = database();
	try {
		return await writeTransaction(db, async (transaction) => {
			const [group] = await db.rows<GroupRow>(GROUP_LOCKED(db), [groupId, organizationId], transaction);
			if (!group) throw scimErrors.notFound('group');
			if (change.name !== undefined || change.externalId !== undefined) await updateGroup(organizationId, groupId, { name: change.name, externalId: change.externalId });
			let [add, remove] = [[...change.add], [...change.remove]];
			if (change.members !== undefined) {
				const current = (await db.rows<{ user_id: string }>('SELECT user_id FROM group_members WHERE group_id = $1', [groupId], transaction)).map((m) => m.user_id);
				const [wanted, had] = [new Set(change.members), new Set(current)];
				remove = current.filter((id) => !wanted.has(id));
				add = [...wanted].filter((id) => !had.has(id));
			}
			for (const chunk of inChunks(remove)) await removeMembers(organizationId, groupId, chunk);
			for (const chunk of inChunks(add)) await addMembers(organizationId, groupId, chunk);
			const [after] = await db.rows<GroupRow>(GROUP_LOCKED(db), [groupId, organizationId], transaction);
			return after;
		});
	} catch (err) {
		if (err instanceof RuleError && err.code === 'user_not_found') {
			throw scimErrors.invalidValue(`${err.message.replace(/ Nothing was changed\.$/, '')} Members are users' SCIM ids (/scim/v2/Users); nothing was changed.`);
		}
		throw err;
	}
}
