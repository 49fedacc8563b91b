import type { RequestHandler } from 'express';

import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { RuleError } from '../common/rule-error';
import { ok, type WriteHandler } from '../http/answer';
import { callerOf } from '../http/auth';
import { parseBody } from '../http/validate';
import { userIdsBody } from './fields';
import { addMembers, removeMembers } from './members';

/** POST /api/v1/groups/{id}/members `{ user_ids }` → 200 `{ added, unchanged }`. */
export const addMembersEndpoint: WriteHandler = async ({ body, params, caller }) => {
	if (!isIdOf('group', params.id)) throw problems.notFound('group');
	const { user_ids } = parseBody(userIdsBody, body);
	return ok(await addMembers(caller.organization.id, params.id, user_ids));
};

/** POST /api/v1/groups/{id}/members/remove `{ user_ids }` → 200 `{ removed, unchanged }`. */
export const removeMembersEndpoint: WriteHandler = async ({ body, params, caller }) => {
	if (!isIdOf('group', params.id)) throw problems.notFound('group');
	const { user_ids } = parseBody(userIdsBody, body);
	return ok(await removeMembers(caller.organization.id, params.id, user_ids));
};

/** DELETE /api/v1/groups/{id}/members/{user_id} → 204 (also when the user was not a member). */
export const removeMemberEndpoint: RequestHandler = async (req, res) => {
	const { id, user_id: userId } = req.params as { id: string; user_id: string };
	if (!isIdOf('group', id)) throw problems.notFound('group');
	try {
		await removeMembers(callerOf(res).organization.id, id, [userId]);
	} catch (err) {
		if (err instanceof RuleError && err.code === 'user_not_found') throw problems.notFound('user');
		throw err;
	}
	res.status(204).end();
};
