import Joi from 'joi';

import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { ownTextSearchPage } from '../search/pages';
import { searchParam } from '../search/param';
import { EMAIL_MAX_LENGTH, EMAIL_RULE, isEmailAddress } from './email';
import { EXTERNAL_ID_MAX_LENGTH, EXTERNAL_ID_RULE, isExternalId } from './external-id';
import { ROLES, USER_STATUSES } from './model';
import { USERS, userConditions, type UserRow } from './queries';
import { serializeUser } from './serialize';

/** GET /api/v1/users, filtered by `email`, `role`, `status`, `external_id` and `search` (users/queries.ts). */
export const listUsers = listEndpoint<UserRow, { email: string; role: string; status: string; external_id: string; search: string }>({
	table: USERS,
	filters: {
		email: Joi.string()
			.max(EMAIL_MAX_LENGTH)
			.custom((value: string, helpers) => (isEmailAddress(value) ? value : helpers.error('string.email')))
			.messages({ 'string.email': `{{#label}} must be ${EMAIL_RULE}`, 'string.max': `{{#label}} must be ${EMAIL_RULE}` })
			.meta({ openapi: { format: 'email' } })
			.description('Exact e-mail address, compared without regard to case.'),
		role: Joi.string()
			.valid(...ROLES)
			.description('Only users with this role.'),
		status: Joi.string()
			.valid(...USER_STATUSES)
			.description('Only users in this status.'),
		external_id: Joi.string()
			.max(EXTERNAL_ID_MAX_LENGTH)
			.custom((value: string, helpers) => (isExternalId(value) ? value : helpers.error('string.externalId')))
			.messages({ 'string.externalId': `{{#label}} must be ${EXTERNAL_ID_RULE}`, 'string.max': `{{#label}} must be ${EXTERNAL_ID_RULE}` })
			.description(
				'Exact external id (case and spaces count): the user your HR system or identity provider knows by it, if any. One index read on any size of organization.',
			),
		search: searchParam(),
	},
	scopesItself: ({ search }) => search !== undefined,
	where: (where, filters, organizationId) => userConditions(where, organizationId, filters),
	// A search, alone or with a role, is counted in the search index and paged by a walk (search/pages.ts).
	searchRead: (search, { role }, organizationId, table, page) =>
		ownTextSearchPage(table, 'user', organizationId, search, 'users', page, role === undefined ? undefined : { column: 'role', value: role, others: ROLES.filter((r) => r !== role) }),
	searchWith: ['role'],
	serialize: serializeUser,
	// Status and external id are counted through their indexes (the counters know roles only).
	counter: ({ email, search, role, status, external_id }) =>
		email === undefined && search === undefined && status === undefined && external_id === undefined
			? { list: 'users', filter: counterFilter([['role', role]]) }
			: undefined,
});
