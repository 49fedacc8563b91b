import type { Database } from '../db';
import { jsonElements, namedRows } from '../db/named-rows';
import type { Table } from '../db/table';
import type { Timestamp } from '../common/time';

/** A group as the API reads one (SPEC §20). */
export interface GroupRow {
	id: string;
	name: string;
	description: string | null;
	externalId: string | null;
	memberCount: number;
	createdAt: Timestamp;
	updatedAt: Timestamp;
}

export const GROUPS: Table<GroupRow> = {
	name: 'groups',
	columns: {
		id: 'id',
		name: 'name',
		description: 'description',
		externalId: 'external_id',
		memberCount: 'member_count',
		createdAt: 'created_at',
		updatedAt: 'updated_at',
	},
	dates: ['createdAt', 'updatedAt'],
};

/** The columns of GROUPS as a statement of this file reads them (after a write, inside its transaction). */
export const groupColumns = (db: Database) =>
	`id, name, description, external_id AS "externalId", member_count AS "memberCount", ${db.isoText('created_at')} AS "createdAt", ${db.isoText('updated_at')} AS "updatedAt"`;

/**
 * The group, locked for the membership change or deletion that reads it (FOR UPDATE on
 * PostgreSQL; SQLite's write transactions take turns): changes of one group's members take turns,
 * so `member_count` and the assignments they apply are read as the last change left them.
 */
export const GROUP_LOCKED = (db: Database) => `SELECT ${groupColumns(db)} FROM groups WHERE id = $1 AND organization_id = $2${db.dialect === 'postgres' ? ' FOR UPDATE' : ''}`;

/** $1 organization, $2 a JSON array of ids: those that are users of the organization. */
export const USERS_OF = (db: Database) => namedRows(db, 'users', 't.id');

/** $1 group, $2 organization, $3 a JSON array of user ids, $4 now: the new members, as `user_id`. */
export const INSERT_MEMBERS = (db: Database) =>
	// The ids come first as a common table expression, which also tells Sequelize's SQLite dialect
	// that the statement returns rows (it runs a statement starting with INSERT without reading any).
	`WITH ids AS (${jsonElements(db, '$3')}) INSERT INTO group_members (group_id, user_id, organization_id, created_at) SELECT $1, value, $2, ${db.storedTime('$4')} FROM ids WHERE TRUE ` +
	'ON CONFLICT (group_id, user_id) DO NOTHING RETURNING user_id';

/** $1 group, $2 a JSON array of user ids: the members removed, as `user_id`. */
export const DELETE_MEMBERS = (db: Database) => `DELETE FROM group_members WHERE group_id = $1 AND user_id IN (${jsonElements(db, '$2')}) RETURNING user_id`;

/**
 * $1 group, $2 the change in members (+ added, - removed), $3 now. member_count is a field of the
 * group, so updated_at moves with it, and with it the SCIM version (ETag, If-None-Match).
 */
export const COUNT_MEMBERS = (db: Database) => `UPDATE groups SET member_count = member_count + $2, updated_at = ${db.storedTime('$3')} WHERE id = $1`;
