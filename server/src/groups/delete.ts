import type { RequestHandler } from 'express';

import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { callerOf } from '../http/auth';
import { deleteGroup } from './write';

/** DELETE /api/v1/groups/{id}: 204; its assignments end as if every member left. */
export const deleteGroupEndpoint: RequestHandler = async (req, res) => {
	const id = req.params.id;
	if (!isIdOf('group', id) || !(await deleteGroup(callerOf(res).organization.id, id))) throw problems.notFound('group');
	res.status(204).end();
};
