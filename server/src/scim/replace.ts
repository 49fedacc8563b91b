import type { RequestHandler } from 'express';

import { callerOf } from '../http/auth';
import { changeUser } from '../users/change';
import { bodyObject, userFromBody } from './body';
import { scimErrors } from './errors';
import { checkIfMatch } from './etag';
import { findUser, sendUser, stillThere } from './get';
import { scimBase, userResource } from './resource';
import { wantedOf } from './translate';

/**
 * PUT /scim/v2/Users/{id}: the resource as the client now has it, applied through the same
 * change as PATCH /api/v1/users/{id} (users/change.ts, door `api`): only what differs is written,
 * with its events (user.updated with the old values, user.deactivated/reactivated); nothing
 * different, nothing written or emitted.
 */
export const replaceUser: RequestHandler = async (req, res) => {
	const body = bodyObject(req);
	const resource = userFromBody(body);
	if (resource.userName === undefined || resource.userName.trim() === '') {
		throw scimErrors.invalidValue('userName is required: the name the identity provider knows the user by (often the e-mail).');
	}
	const organizationId = callerOf(res).organization.id;
	const row = await findUser(organizationId, String(req.params.id));
	checkIfMatch(req, row);
	const wanted = wantedOf(userResource(row, scimBase(req)), resource, { externalIdGiven: 'externalId' in body, whole: true });
	const { user } = await changeUser(organizationId, row.id, wanted, 'api', (locked) => {
		stillThere(locked);
		checkIfMatch(req, locked);
	});
	sendUser(res, 200, user);
};
