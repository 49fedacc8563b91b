import Joi from 'joi';

import { counterFilter } from '../db/list-counts';
import { listEndpoint } from '../http/list';
import { idParam, repeatableParam } from '../http/validate';
import { ownTextSearchPage } from '../search/pages';
import { searchParam } from '../search/param';
import { EMAIL_RULE, isEmailAddress } from './email';
import { EXTERNAL_ID_MAX_LENGTH, EXTERNAL_ID_RULE, isExternalId } from './external-id';
import { ROLES, USER_STATUSES } from './model';
import { PROFILE_MAX_LENGTH } from './profile';
import { USERS, userConditions, type UserRow } from './queries';
import { serializeUser } from './serialize';

/** How many addresses one `email=a,b,c` takes: a page's worth, so one request answers them all. */
const MAX_EMAILS = 100;

/**
 * How many external ids one request takes, each as its own `external_id` parameter
 * (`external_id=a&external_id=b`, OpenAPI's default for query arrays): an external id may hold
 * commas, so a single value is always one exact id.
 */
const MAX_EXTERNAL_IDS = 100;

const externalIdValue = Joi.string()
	.max(EXTERNAL_ID_MAX_LENGTH)
	.custom((value: string, helpers) => (isExternalId(value) ? value : helpers.error('string.externalId')))
	.messages({ 'string.externalId': `{{#label}} must be ${EXTERNAL_ID_RULE}`, 'string.max': `{{#label}} must be ${EXTERNAL_ID_RULE}` });

/** GET /api/v1/users, filtered by `email`, `role`, `status`, `external_id`, `group_id`, `department` and `search` (users/queries.ts). */
export const listUsers = listEndpoint<UserRow, { email: string; role: string; status: string; external_id: string; group_id: string; department: string; search: string }>({
	table: USERS,
	filters: {
		// Bounded by the request line's size (the HTTP server's header limit), and here by count and each address's length.
		email: Joi.string()
			.custom((value: string, helpers) => {
				const emails = value.split(',');
				if (emails.length > MAX_EMAILS) return helpers.error('string.emails');
				return emails.every(isEmailAddress) ? value : helpers.error('string.email');
			})
			.messages({
				'string.email': `{{#label}} must be ${EMAIL_RULE}, or up to ${MAX_EMAILS} of them separated by commas`,
				'string.emails': `{{#label}} holds more than ${MAX_EMAILS} addresses: ask for at most ${MAX_EMAILS} at once`,
			})
			.description(
				`Exact e-mail address, compared without regard to case; or up to ${MAX_EMAILS} addresses separated by commas (the users holding any of them: a roster matched in one request).`,
			),
		role: Joi.string()
			.valid(...ROLES)
			.description('Only users with this role.'),
		status: Joi.string()
			.valid(...USER_STATUSES)
			.description('Only users in this status.'),
		external_id: repeatableParam(
			externalIdValue,
			MAX_EXTERNAL_IDS,
			`Exact external id (case and spaces count): the user your HR system or identity provider knows by it, if any. One index read on any size of organization. Repeated (\`external_id=a&external_id=b\`, up to ${MAX_EXTERNAL_IDS} times; an external id may hold commas, so there is no comma list): the users holding any of them, a roster matched in one request.`,
		),
		group_id: idParam('group').description("Only the group's members."),
		department: Joi.string()
			.max(PROFILE_MAX_LENGTH)
			.description(
				"Only users whose profile.department is this, compared without regard to case (the identity provider's enterprise `department`, SPEC §21). One index read on any size of organization.",
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
	counter: ({ email, search, role, status, external_id, group_id, department }) =>
		email === undefined && search === undefined && status === undefined && external_id === undefined && group_id === undefined && department === undefined
			? { list: 'users', filter: counterFilter([['role', role]]) }
			: undefined,
});
