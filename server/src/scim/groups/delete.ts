import type { RequestHandler } from 'express';

import { deleteGroup as deleteDomainGroup } from '../../groups/write';
import { callerOf } from '../../http/auth';
import { scimErrors } from '../errors';
import { findGroup } from './get';

/** DELETE /scim/v2/Groups/{id}: the group is deleted as by DELETE /api/v1/groups/{id} (its assignments end); 204, then 404. */
export const deleteGroup: RequestHandler = async (req, res) => {
	const organizationId = callerOf(res).organization.id;
	const row = await findGroup(organizationId, String(req.params.id));
	if (!(await deleteDomainGroup(organizationId, row.id))) throw scimErrors.notFound('group');
	res.status(204).end();
};
