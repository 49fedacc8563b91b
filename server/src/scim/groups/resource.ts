import { iso } from '../../common/time';
import { database } from '../../db';
import { jsonElements } from '../../db/named-rows';
import type { GroupRow } from '../../groups/queries';
import { versionOf } from '../resource';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** A member as a Group shows it (RFC 7643 §4.2): the user's id, name and address. */
export interface Member {
	value: string;
	display: string;
	$ref: string;
	type: 'User';
}


/**
 * The members of these groups, with the user's name as `display`, in one read (the group_members
 * primary key); a list of groups reads its page's members at once rather than group by group.
 */
export async function membersOf(groupIds: readonly string[], base: string): Promise<Map<string, Member[]>> {
	const found = new Map<string, Member[]>(groupIds.map((id) => [id, []]));
	if (groupIds.length === 0) return found;
	const db = database();
	const rows = await db.read<{ groupId: string; id: string; name: string }>(
		`SELECT m.group_id AS "groupId", u.id, u.name FROM group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id IN (${jsonElements(db, '$1')}) ORDER BY m.created_at, u.id`,
		[JSON.stringify(groupIds)],
	);
	for (const row of rows) found.get(row.groupId)?.push({ value: row.id, display: row.name, $ref: `${base}/Users/${row.id}`, type: 'User' });
	return found;
}

/**
 * A group as SCIM shows it (RFC 7643 §4.2): `id` the grp_… id, `displayName` its name,
 * `externalId`, and `members` unless the request left them out (`undefined`).
 */
export function groupResource(group: GroupRow, members: Member[] | undefined, base: string) {
	return {
		schemas: [GROUP_SCHEMA],
		id: group.id,
		...(group.externalId === null ? {} : { externalId: group.externalId }),
		displayName: group.name,
		...(members === undefined ? {} : { members }),
		meta: {
			resourceType: 'Group',
			created: iso(group.createdAt),
			lastModified: iso(group.updatedAt),
			location: `${base}/Groups/${group.id}`,
			version: versionOf(group),
		},
	};
}
