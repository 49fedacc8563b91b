import Joi from 'joi';

import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { searchParam } from '../search/param';
import { searchWhere } from '../search/words';
import { EMAIL_MAX_LENGTH, EMAIL_RULE, isEmailAddress } from './email';
import { ROLES, User } from './model';
import { serializeUser } from './serialize';

/**
 * GET /api/v1/users: `email` matches exactly but ignoring case; `role` is one of the four;
 * `search` keeps users whose e-mail or a word of whose name starts with it, ignoring case.
 */
export const listUsers = listEndpoint<User, { email: string; role: string; search: string }>({
	model: User,
	filters: {
		email: Joi.string()
			.max(EMAIL_MAX_LENGTH)
			.custom((value: string, helpers) => (isEmailAddress(value) ? value : helpers.error('string.email')))
			.messages({ 'string.email': `{{#label}} must be ${EMAIL_RULE}`, 'string.max': `{{#label}} must be ${EMAIL_RULE}` }),
		role: Joi.string().valid(...ROLES),
		search: searchParam(),
	},
	where: (organizationId, { email, role, search }) => ({
		...(search !== undefined ? searchWhere(User.sequelize!, 'user', organizationId, search) : { organizationId }),
		...(email !== undefined ? { emailLower: email.toLowerCase() } : {}),
		...(role !== undefined ? { role } : {}),
	}),
	serialize: serializeUser,
	counter: ({ email, search, role }) =>
		email === undefined && search === undefined ? { list: 'users', filter: counterFilter([['role', role]]) } : undefined,
});
