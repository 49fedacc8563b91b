import { UniqueConstraintError } from 'sequelize';

import { newId } from '../common/ids';
import { RuleError } from '../common/rule-error';
import { hasControlCharacters } from '../common/text';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { recordEvent } from '../events/record';
import { endAssignmentsOf } from '../assignments/end';
import { isExternalId, EXTERNAL_ID_RULE } from '../users/external-id';
import { GROUP_LOCKED, groupColumns, type GroupRow } from './queries';
import { serializeGroup } from './serialize';

export interface GroupFields {
	name: string;
	description: string | null;
	externalId: string | null;
}

const GROUP_NAME_MAX = 200;
export const GROUP_DESCRIPTION_MAX = 1000;

/** The fields' rules, for every door (the API's schemas say the same first: groups/fields.ts). */
function checkFields({ name, description, externalId }: Partial<GroupFields>): void {
	if (name !== undefined && (name.length < 1 || name.length > GROUP_NAME_MAX || hasControlCharacters(name))) {
		throw new RuleError('invalid_name', `name must be 1 to ${GROUP_NAME_MAX} characters of plain text.`);
	}
	if (description !== undefined && description !== null && description.length > GROUP_DESCRIPTION_MAX) {
		throw new RuleError('invalid_description', `description must be at most ${GROUP_DESCRIPTION_MAX} characters, or null.`);
	}
	if (externalId !== undefined && externalId !== null && !isExternalId(externalId)) throw new RuleError('invalid_external_id', `external_id must be ${EXTERNAL_ID_RULE}.`);
}

/**
 * Which group holds the name (any case) or the external id that a write collided with, as the
 * 409 that names it. The unique indexes decided (0023 migration); this only says who won.
 */
async function takenBy(organizationId: string, { name, externalId }: Partial<GroupFields>, exceptId?: string): Promise<RuleError | undefined> {
	const [byName] =
		name === undefined
			? []
			: await database().rows<{ id: string }>('SELECT id FROM groups WHERE organization_id = $1 AND name_lower = $2 AND id <> $3', [organizationId, name.toLowerCase(), exceptId ?? '']);
	if (byName) return new RuleError('group_name_taken', `Another group of the organization is named ${name} (in some case) (${byName.id}).`, { groupId: byName.id });
	const [byExternalId] =
		externalId === undefined || externalId === null
			? []
			: await database().rows<{ id: string }>('SELECT id FROM groups WHERE organization_id = $1 AND external_id = $2 AND id <> $3', [organizationId, externalId, exceptId ?? '']);
	if (byExternalId) return new RuleError('external_id_taken', `Another group of the organization has this external_id (${byExternalId.id}).`, { groupId: byExternalId.id });
	return undefined;
}

/**
 * Creates a group and its `group.created`. Of concurrent creations with the same name (in any
 * case) or external id, the unique indexes let one in; the others find it and answer 409 naming it.
 */
export async function createGroup(organizationId: string, fields: GroupFields): Promise<GroupRow> {
	checkFields(fields);
	const db = database();
	const made = await writeTransaction(db, async (transaction) => {
		const [id, now] = [newId('grp'), new Date().toISOString()];
		await db.run(
			'INSERT INTO groups (id, organization_id, name, name_lower, description, external_id, member_count, created_at, updated_at) ' +
				`VALUES ($1, $2, $3, $4, $5, $6, 0, ${db.storedTime('$7')}, ${db.storedTime('$7')}) ON CONFLICT DO NOTHING`,
			[id, organizationId, fields.name, fields.name.toLowerCase(), fields.description, fields.externalId, now],
			transaction,
		);
		const [group] = await db.rows<GroupRow>(`SELECT ${groupColumns(db)} FROM groups WHERE id = $1`, [id], transaction);
		if (group) await recordEvent(transaction, { organizationId, type: 'group.created', object: serializeGroup(group), at: new Date(now) });
		return group;
	});
	if (made) return made;
	throw (await takenBy(organizationId, fields)) ?? new RuleError('group_name_taken', 'Another group of the organization has this name or external_id; try again.');
}

/**
 * Changes any of a group's fields; `group.updated` when something changed, nothing when not
 * (a retry is harmless). A name or external id another group has answers 409 naming it.
 */
export async function updateGroup(organizationId: string, id: string, change: Partial<GroupFields>): Promise<GroupRow> {
	checkFields(change);
	const db = database();
	try {
		return await writeTransaction(db, async (transaction) => {
			const [group] = await db.rows<GroupRow>(GROUP_LOCKED(db), [id, organizationId], transaction);
			if (!group) throw new RuleError('not_found', 'No such group in the organization.', { what: 'group' });
			const next = {
				name: change.name ?? group.name,
				description: change.description === undefined ? group.description : change.description,
				externalId: change.externalId === undefined ? group.externalId : change.externalId,
			};
			if (next.name === group.name && next.description === group.description && next.externalId === group.externalId) return group;
			const taken = await takenBy(organizationId, { name: next.name.toLowerCase() === group.name.toLowerCase() ? undefined : next.name, externalId: next.externalId === group.externalId ? undefined : next.externalId }, id);
			if (taken) throw taken;
			const now = new Date();
			const [updated] = await db.rows<GroupRow>(
				`UPDATE groups SET name = $2, name_lower = $3, description = $4, external_id = $5, updated_at = ${db.storedTime('$6')} WHERE id = $1 RETURNING ${groupColumns(db)}`,
				[id, next.name, next.name.toLowerCase(), next.description, next.externalId, now.toISOString()],
				transaction,
			);
			await recordEvent(transaction, { organizationId, type: 'group.updated', object: serializeGroup(updated), at: now });
			return updated;
		});
	} catch (err) {
		// A concurrent write took the name or id between the check and the update.
		if (err instanceof UniqueConstraintError) throw (await takenBy(organizationId, change, id)) ?? err;
		throw err;
	}
}

/**
 * Deletes a group and its `group.deleted`, in one transaction: its assignments end as if every
 * member left (those with `on_removal: withdraw` withdraw the active enrollments they made), then
 * its memberships and the group go. Enrollments otherwise stay. Returns false for no such group.
 */
export async function deleteGroup(organizationId: string, id: string): Promise<boolean> {
	const db = database();
	return writeTransaction(db, async (transaction) => {
		const [group] = await db.rows<GroupRow>(GROUP_LOCKED(db), [id, organizationId], transaction);
		if (!group) return false;
		const now = new Date();
		await endAssignmentsOf(transaction, id, now);
		await db.run('DELETE FROM group_members WHERE group_id = $1', [id], transaction);
		await db.run('DELETE FROM groups WHERE id = $1', [id], transaction);
		await recordEvent(transaction, { organizationId, type: 'group.deleted', object: serializeGroup(group), at: now });
		return true;
	});
}
