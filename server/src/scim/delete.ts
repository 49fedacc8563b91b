import type { RequestHandler } from 'express';

import { callerOf } from '../http/auth';
import { changeUser } from '../users/change';
import { checkIfMatch } from './etag';
import { findUser, stillThere } from './get';

/**
 * DELETE /scim/v2/Users/{id} (SPEC §21): one-step offboarding through the same change as PATCH
 * /api/v1/users/{id} `{status: deactivated}`, and the SCIM resource is gone: GET, PUT, PATCH and a
 * repeat answer 404, filters skip it. The record, its history and its certificates stay (/api/v1
 * shows it deactivated); a POST of the same userName brings it back (create.ts).
 */
export const deleteUser: RequestHandler = async (req, res) => {
	const organizationId = callerOf(res).organization.id;
	const row = await findUser(organizationId, String(req.params.id));
	checkIfMatch(req, row);
	await changeUser(organizationId, row.id, { status: 'deactivated', scimDeleted: true }, 'api', (locked) => {
		stillThere(locked);
		checkIfMatch(req, locked);
	});
	res.status(204).end();
};
