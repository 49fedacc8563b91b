import { database } from '../db';
import { GROUPS, groupColumns, type GroupRow } from './queries';

/** An organization's groups by name (the CLI's `groups list`), at most `limit`. */
export async function groupsOf(organizationId: string, limit: number): Promise<GroupRow[]> {
	const db = database();
	return db.rows<GroupRow>(`SELECT ${groupColumns(db)} FROM ${GROUPS.name} WHERE organization_id = $1 ORDER BY name_lower, id LIMIT $2`, [organizationId, limit]);
}

/** The group of the organization with this id, or with this name in any case (the CLI names groups either way). */
export async function findGroup(organizationId: string, idOrName: string): Promise<GroupRow | undefined> {
	const db = database();
	const [group] = await db.rows<GroupRow>(`SELECT ${groupColumns(db)} FROM groups WHERE organization_id = $1 AND (id = $2 OR name_lower = $3)`, [organizationId, idOrName, idOrName.toLowerCase()]);
	return group;
}
