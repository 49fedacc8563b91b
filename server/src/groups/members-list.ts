import type { RequestHandler } from 'express';

import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { readOne } from '../db/table';
import { callerOf } from '../http/auth';
import { listEndpoint } from '../http/list';
import { USERS, type UserRow } from '../users/queries';
import { serializeUser } from '../users/serialize';
import { GROUPS } from './queries';

/** The group of the path, in the caller's organization, or 404 before the list is read. */
export const groupOfPath: RequestHandler = async (req, res, next) => {
	const id = req.params.id;
	if (!isIdOf('group', id) || !(await readOne(GROUPS, callerOf(res).organization.id, id))) throw problems.notFound('group');
	next();
};

/** GET /api/v1/groups/{id}/members: the members as users, in the users list's envelope and order. */
export const listMembers = listEndpoint<UserRow, Record<string, never>>({
	table: USERS,
	filters: {},
	where: (where, _filters, _organizationId, params) => {
		where.and((p) => `id IN (SELECT user_id FROM group_members WHERE group_id = ${p})`, params.id);
	},
	serialize: serializeUser,
});
