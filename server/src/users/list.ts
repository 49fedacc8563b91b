import Joi from 'joi';

import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { searchParam } from '../search/param';
import { EMAIL_MAX_LENGTH, EMAIL_RULE, isEmailAddress } from './email';
import { ROLES } from './model';
import { USERS, userConditions, type UserRow } from './queries';
import { serializeUser } from './serialize';

/** GET /api/v1/users, filtered by `email`, `role` and `search` (users/queries.ts). */
export const listUsers = listEndpoint<UserRow, { email: string; role: string; search: string }>({
	table: USERS,
	filters: {
		email: Joi.string()
			.max(EMAIL_MAX_LENGTH)
			.custom((value: string, helpers) => (isEmailAddress(value) ? value : helpers.error('string.email')))
			.messages({ 'string.email': `{{#label}} must be ${EMAIL_RULE}`, 'string.max': `{{#label}} must be ${EMAIL_RULE}` }),
		role: Joi.string().valid(...ROLES),
		search: searchParam(),
	},
	scopesItself: ({ search }) => search !== undefined,
	where: (where, filters, organizationId) => userConditions(where, organizationId, filters),
	serialize: serializeUser,
	counter: ({ email, search, role }) =>
		email === undefined && search === undefined ? { list: 'users', filter: counterFilter([['role', role]]) } : undefined,
});
