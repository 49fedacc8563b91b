import Joi from 'joi';

import { listEndpoint } from '../http/list';
import { ROLES, User } from './model';
import { serializeUser } from './serialize';

/** GET /api/v1/users: `email` matches exactly but ignoring case; `role` is one of the four. */
export const listUsers = listEndpoint<User, { email: string; role: string }>({
	model: User,
	filters: {
		email: Joi.string().max(254).email({ tlds: { allow: false }, minDomainSegments: 1 }),
		role: Joi.string().valid(...ROLES),
	},
	where: (organizationId, { email, role }) => ({
		organizationId,
		...(email !== undefined ? { emailLower: email.toLowerCase() } : {}),
		...(role !== undefined ? { role } : {}),
	}),
	serialize: serializeUser,
});
