import type { RequestHandler } from 'express';

import { callerOf } from '../http/auth';
import { changeUser } from '../users/change';
import { createUser as createDomainUser } from '../users/service';
import { bodyObject, userFromBody } from './body';
import { scimErrors } from './errors';
import { sendUser } from './get';
import { scimBase } from './resource';
import { wantedOf } from './translate';

/**
 * POST /scim/v2/Users: the same create as POST /api/v1/users (users/service.ts, door `api`): a
 * student, its user.created event, the e-mail and external id unique in the organization (409
 * uniqueness naming who holds it; of concurrent identical creates exactly one wins). A user
 * created inactive is created, then deactivated, as the API would.
 */
export const createUser: RequestHandler = async (req, res) => {
	const resource = userFromBody(bodyObject(req));
	if (resource.userName === undefined || resource.userName.trim() === '') {
		throw scimErrors.invalidValue("userName is required: the user's e-mail address.");
	}
	const wanted = wantedOf(undefined, resource, { externalIdGiven: true });
	const { organization } = callerOf(res);
	let user = await createDomainUser({
		organization,
		email: wanted.email,
		name: wanted.name ?? wanted.email,
		role: 'student',
		externalId: wanted.externalId ?? null,
		door: 'api',
	});
	if (wanted.status === 'deactivated') user = (await changeUser(organization.id, user.id, { status: 'deactivated' }, 'api')).user;
	sendUser(res, 201, user, { Location: `${scimBase(req)}/Users/${user.id}` });
};
