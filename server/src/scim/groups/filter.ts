import type { Where } from '../../db/where';
import { scimErrors } from '../errors';
import { type FilterNode, type FilterValue, parseFilter } from '../filter-parse';
import { addScimFilter, stringValue } from '../filter-sql';

/**
 * A Group filter (RFC 7644 §3.4.2.2) as SQL on the groups table, read by the same bounded grammar
 * as the Users' (scim/filter-parse.ts) and kept as its and/or tree. Each comparison is an index
 * read: displayName on the unique (organization_id, name_lower) index (caseExact false, RFC 7643
 * §4.2), externalId on its unique index, id on the key, members.value on group_members' primary
 * key. Entra asks `id eq "…" and members.value eq "…"` to learn whether a user is a member.
 */

const SUPPORTED = 'displayName, externalId, id or members.value with eq, joined by and / or';

function unsupported(what: string): never {
	throw scimErrors.invalidFilter(`${what} is not supported on Groups: filter on ${SUPPORTED}, e.g. displayName eq "Sales".`);
}

function condition(where: Where, attribute: string, value: FilterValue | undefined): string {
	switch (attribute.toLowerCase().replace(/^urn:ietf:params:scim:schemas:core:2\.0:group:/, '')) {
		case 'displayname':
			return `name_lower = ${where.param(stringValue(attribute, value).toLowerCase())}`;
		case 'externalid':
			return `external_id = ${where.param(stringValue(attribute, value))}`;
		case 'id':
			return `id = ${where.param(stringValue(attribute, value))}`;
		case 'members.value':
		case 'members':
			return `id IN (SELECT group_id FROM group_members WHERE user_id = ${where.param(stringValue(attribute, value))})`;
		default:
			return unsupported(`Filtering on ${attribute}`);
	}
}

/** Adds the filter's condition to `where`; 400 invalidFilter for what cannot be read, is too big or is not supported. */
export function addGroupFilter(where: Where, filter: string): void {
	addScimFilter(where, filter, (attribute, value) => condition(where, attribute, value), unsupported);
}

/**
 * The user ids a PATCH value path names, `members[value eq "…"]` (or several joined by `or`,
 * as a client removing a few members at once may send); anything else there is 400.
 */
export function memberIdsOfPath(filter: string): string[] {
	const ids: string[] = [];
	const walk = (node: FilterNode): void => {
		if (node.kind === 'or') {
			walk(node.left);
			walk(node.right);
		} else if (node.kind === 'compare' && node.operator === 'eq' && node.attribute.toLowerCase() === 'members.value' && typeof node.value === 'string') {
			ids.push(node.value);
		} else {
			throw scimErrors.invalidPath('A members path names members by value: members[value eq "usr_…"] (several joined by or).');
		}
	};
	walk(parseFilter(`members[${filter}]`));
	return ids;
}
