import type { Where } from '../db/where';
import { scimErrors } from './errors';
import type { FilterValue } from './filter-parse';
import { addScimFilter, stringValue } from './filter-sql';

/**
 * A SCIM filter (RFC 7644 §3.4.2.2) as SQL on the users table. The filter is parsed and bounded by
 * scim/filter-parse.ts, and its tree becomes the same tree of AND / OR in SQL (no normal form is
 * ever expanded): each comparison is a condition on an indexed column: userName on username_lower
 * and emails.value on email_lower (caseExact false, RFC 7643 §4.1.1), externalId on external_id (caseExact), id,
 * and active on status. So `userName eq "…"` is one index read however many users there are; no
 * filter is ever applied to rows in memory.
 */

const SUPPORTED = 'userName, emails.value, externalId, id or active with eq, joined by and / or';

function unsupported(what: string): never {
	throw scimErrors.invalidFilter(`${what} is not supported: filter on ${SUPPORTED}.`);
}

/** One `eq` comparison as SQL with its parameters placed in `where`. */
function condition(where: Where, attribute: string, value: FilterValue | undefined): string {
	switch (attribute.toLowerCase()) {
		case 'username':
			return `username_lower = ${where.param(stringValue(attribute, value).toLowerCase())}`;
		case 'emails.value':
			return `email_lower = ${where.param(stringValue(attribute, value).toLowerCase())}`;
		case 'externalid':
			return `external_id = ${where.param(stringValue(attribute, value))}`;
		case 'id':
			return `id = ${where.param(stringValue(attribute, value))}`;
		case 'active':
			if (typeof value !== 'boolean') throw scimErrors.invalidFilter('active eq takes true or false.');
			return `status = ${where.param(value ? 'active' : 'deactivated')}`;
		// Every user has one e-mail, of type work and primary.
		case 'emails.type':
			return typeof value === 'string' && value.toLowerCase() === 'work' ? 'TRUE' : 'FALSE';
		case 'emails.primary':
			return value === true ? 'TRUE' : 'FALSE';
		default:
			return unsupported(`Filtering on ${attribute}`);
	}
}

/** Adds the filter's condition to `where`; 400 invalidFilter for what cannot be read, is too big or is not supported. */
export function addFilter(where: Where, filter: string): void {
	addScimFilter(where, filter, (attribute, value) => condition(where, attribute, value), unsupported);
}
