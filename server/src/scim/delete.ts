import type { RequestHandler } from 'express';

import { callerOf } from '../http/auth';
import { changeUser } from '../users/change';
import { checkIfMatch } from './etag';
import { findUser } from './get';

/**
 * DELETE /scim/v2/Users/{id} is deactivation (SPEC §16): one-step offboarding through the same
 * change as PATCH /api/v1/users/{id} `{status: deactivated}`. The record, its history and its
 * certificates stay (GET shows it with active false; /api/v1 as deactivated); a repeat is 204 too.
 */
export const deleteUser: RequestHandler = async (req, res) => {
	const organizationId = callerOf(res).organization.id;
	const row = await findUser(organizationId, String(req.params.id));
	checkIfMatch(req, row);
	await changeUser(organizationId, row.id, { status: 'deactivated' }, 'api', (locked) => checkIfMatch(req, locked));
	res.status(204).end();
};
