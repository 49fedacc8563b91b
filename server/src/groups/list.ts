import Joi from 'joi';

import { database } from '../db';
import { listEndpoint } from '../http/list';
import { searchParam } from '../search/param';
import { EXTERNAL_ID_MAX_LENGTH } from '../users/external-id';
import { memberParam } from './fields';
import { GROUPS, type GroupRow } from './queries';
import { serializeGroup } from './serialize';

/**
 * GET /api/v1/groups, filtered by `name` (exact, any case: the unique name index), `external_id`
 * (exact: its unique index), `search` (a part of the name, any case) and `member` (the groups
 * holding a user: the (user_id, group_id) index).
 */
export const listGroups = listEndpoint<GroupRow, { name: string; external_id: string; search: string; member: string }>({
	table: GROUPS,
	filters: {
		name: Joi.string().min(1).max(200).description('Exact name, compared without regard to case.'),
		external_id: Joi.string().min(1).max(EXTERNAL_ID_MAX_LENGTH).description('Exact external id (case and spaces count).'),
		search: searchParam().description('1 to 100 characters: only groups whose name contains this text, compared without regard to case.'),
		member: memberParam,
	},
	where: (where, { name, external_id, search, member }) => {
		where.equals('name_lower', name?.toLowerCase());
		where.equals('external_id', external_id);
		if (search !== undefined) where.and((p) => `${database().dialect === 'postgres' ? `strpos(name_lower, ${p})` : `instr(name_lower, ${p})`} > 0`, search.toLowerCase());
		if (member !== undefined) where.and((p) => `id IN (SELECT group_id FROM group_members WHERE user_id = ${p})`, member);
	},
	serialize: serializeGroup,
});
