import type { Where } from '../db/where';
import { scimErrors } from './errors';
import { type FilterNode, type FilterValue, parseFilter } from './filter-parse';

/**
 * A SCIM filter (RFC 7644 §3.4.2.2) as SQL, for any resource type: the filter is parsed and
 * bounded by filter-parse.ts, and its tree becomes the same tree of AND / OR in SQL (no normal
 * form is ever expanded). `condition` makes one `eq` comparison a condition on the resource's own
 * columns, its parameters placed in `where`; `unsupported` says, in the resource's words, what
 * can be filtered on instead. Adds the condition to `where`; 400 invalidFilter for what cannot be
 * read, is too big or is not supported.
 */
export function addScimFilter(
	where: Where,
	filter: string,
	condition: (attribute: string, value: FilterValue | undefined) => string,
	unsupported: (what: string) => never,
): void {
	const sqlOf = (node: FilterNode): string => {
		switch (node.kind) {
			case 'compare':
				if (node.operator !== 'eq') unsupported(`The ${node.operator} operator (on ${node.attribute})`);
				return condition(node.attribute, node.value);
			case 'and':
			case 'or':
				return `(${sqlOf(node.left)} ${node.kind.toUpperCase()} ${sqlOf(node.right)})`;
			case 'not':
				return unsupported('not');
		}
	};
	const sql = sqlOf(parseFilter(filter));
	where.and(() => sql);
}

/** A comparison's value that must be a string. */
export function stringValue(attribute: string, value: FilterValue | undefined): string {
	if (typeof value !== 'string') throw scimErrors.invalidFilter(`${attribute} eq takes a string in double quotes, e.g. ${attribute} eq "value".`);
	return value;
}
