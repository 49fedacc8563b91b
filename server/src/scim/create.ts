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
 * student, its user.created event, the e-mail and external id unique in the organization (409
 * uniqueness naming who holds it; of concurrent identical creates exactly one wins). A user
 * created inactive is created, then deactivated, as the API would.
 *
 * A user deleted through SCIM (SPEC §21) with this userName comes back instead: the same id,
 * reactivated with the POSTed attributes, 201. Of concurrent POSTs bringing it back one wins,
 * the others find it there again (409 uniqueness).
 */
export const createUser: RequestHandler = async (req, res) => {
	const resource = userFromBody(bodyObject(req));
	if (resource.userName === undefined || resource.userName.trim() === '') {
		throw scimErrors.invalidValue("userName is required: the user's e-mail address.");
	}
	const wanted = wantedOf(undefined, resource, { externalIdGiven: true });
	const { organization } = callerOf(res);
	const deleted = await User.findOne({
		where: { organizationId: organization.id, emailLower: wanted.email!.toLowerCase(), scimDeletedAt: { [Op.ne]: null } },
		attributes: ['id'],
	});
	let user = deleted
		? (
				await changeUser(
					organization.id,
					deleted.id,
					{ email: wanted.email, name: wanted.name, externalId: wanted.externalId ?? null, status: 'active' },
					'api',
					(locked) => {
						if (locked.scimDeletedAt === null) throw new RuleError('email_taken', `A user with e-mail ${locked.email} already exists in the organization (${locked.id}).`, { userId: locked.id });
					},
				)
			).user
		: await createDomainUser({
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
