import type { RequestHandler } from 'express';
import { Op } from 'sequelize';

import { RuleError } from '../common/rule-error';
import { callerOf } from '../http/auth';
import { changeUser } from '../users/change';
import { User } from '../users/model';
import { createUser as createDomainUser } from '../users/service';
import { bodyObject, userFromBody } from './body';
import { scimErrors } from './errors';
import { sendUser } from './get';
import { scimBase } from './resource';
import { wantedOf } from './translate';

/**
 * POST /scim/v2/Users: the same create as POST /api/v1/users (users/service.ts, door `api`): a
 * student with everything the resource says (username, e-mail, name parts, profile, status) and
 * its events, in one transaction; the e-mail, username and external id unique in the
 * organization (409 uniqueness naming who holds it; of concurrent identical creates exactly one
 * wins, the others are 409).
 *
 * A user deleted through SCIM (SPEC §21) with this userName comes back instead: the same id,
 * reactivated with the POSTed attributes, 201. Of concurrent POSTs bringing it back one wins,
 * the others find it there again (409 uniqueness).
 */
/** A user created without any name is named by its userName (the LMS name is at most 200 characters). */
const fallbackName = (userName: string) => userName.slice(0, 200).trim();

export const createUser: RequestHandler = async (req, res) => {
	const resource = userFromBody(bodyObject(req));
	if (resource.userName === undefined || resource.userName.trim() === '') {
		throw scimErrors.invalidValue('userName is required: the name the identity provider knows the user by (often the e-mail).');
	}
	const wanted = wantedOf(undefined, resource, { externalIdGiven: true, whole: true });
	const { organization } = callerOf(res);
	const deleted = await User.findOne({
		where: { organizationId: organization.id, usernameLower: resource.userName.toLowerCase(), scimDeletedAt: { [Op.ne]: null } },
		attributes: ['id'],
	});
	const everything = { email: wanted.email, username: wanted.username, externalId: wanted.externalId ?? null, profile: wanted.profile, scimNames: wanted.scimNames };
	let user = deleted
		? (
				await changeUser(
					organization.id,
					deleted.id,
					{
						...everything,
						name: wanted.name,
						// What the POST does not say is not kept from before.
						profile: { title: null, department: null, employeeNumber: null, managerId: null, ...wanted.profile },
						status: 'active',
					},
					'api',
					(locked) => {
						if (locked.scimDeletedAt === null) throw new RuleError('username_taken', `A user with username ${JSON.stringify(locked.username)} already exists in the organization (${locked.id}).`, { userId: locked.id });
					},
				)
			).user
		: await createDomainUser({ organization, ...everything, name: wanted.name ?? fallbackName(wanted.username ?? wanted.email!), role: 'student', status: wanted.status, door: 'api' });
	// Brought back inactive: rare enough for a second step (a new user is created inactive in one).
	if (deleted && wanted.status === 'deactivated') user = (await changeUser(organization.id, user.id, { status: 'deactivated' }, 'api')).user;
	sendUser(res, 201, user, { Location: `${scimBase(req)}/Users/${user.id}` });
};
