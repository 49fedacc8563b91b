import SCIMMY from 'scimmy';

import type { Where } from '../db/where';
import { scimErrors } from './errors';

/**
 * A SCIM filter (RFC 7644 §3.4.2.2) as SQL on the users table. scimmy parses it into its
 * disjunctive normal form (an array of alternatives, each an object of attribute → comparison),
 * and each comparison becomes a condition on an indexed column: userName and emails.value on
 * email_lower (caseExact false, RFC 7643 §4.1.1), externalId on external_id (caseExact), id, and
 * active on status. So `userName eq "…"` is one index read however many users there are; no
 * filter is ever applied to rows in memory.
 */

const SUPPORTED = 'userName, emails.value, externalId, id or active with eq, joined by and / or';
const MAX_ALTERNATIVES = 20;

type Comparison = [operator: string, value?: unknown];
type Expression = { [attribute: string]: Comparison | Comparison[] | Expression };

function unsupported(what: string): never {
	throw scimErrors.invalidFilter(`${what} is not supported: filter on ${SUPPORTED}.`);
}

function stringValue(attribute: string, value: unknown): string {
	if (typeof value !== 'string') throw scimErrors.invalidFilter(`${attribute} eq takes a string in double quotes, e.g. ${attribute} eq "value".`);
	return value;
}

/** The comparisons under one attribute: scimmy gives one, or a list when it is repeated. */
function comparisonsOf(value: Comparison | Comparison[]): Comparison[] {
	return Array.isArray(value[0]) ? (value as Comparison[]) : [value as Comparison];
}

/** One comparison as SQL with its parameters placed in `where`. */
function condition(where: Where, path: string, [operator, value]: Comparison): string {
	if (operator !== 'eq') unsupported(`The ${operator} operator (on ${path})`);
	switch (path.toLowerCase()) {
		case 'username':
		case 'emails.value':
			return `email_lower = ${where.param(stringValue(path, value).toLowerCase())}`;
		case 'externalid':
			return `external_id = ${where.param(stringValue(path, value))}`;
		case 'id':
			return `id = ${where.param(stringValue(path, value))}`;
		case 'active':
			if (typeof value !== 'boolean') throw scimErrors.invalidFilter('active eq takes true or false.');
			return `status = ${where.param(value ? 'active' : 'deactivated')}`;
		// Every user has one e-mail, of type work and primary.
		case 'emails.type':
			return typeof value === 'string' && value.toLowerCase() === 'work' ? 'TRUE' : 'FALSE';
		case 'emails.primary':
			return value === true ? 'TRUE' : 'FALSE';
		default:
			return unsupported(`Filtering on ${path}`);
	}
}

function conjunction(where: Where, expression: Expression, prefix = ''): string[] {
	const parts: string[] = [];
	for (const [attribute, value] of Object.entries(expression)) {
		const path = prefix + attribute;
		if (Array.isArray(value)) for (const comparison of comparisonsOf(value)) parts.push(condition(where, path, comparison));
		else parts.push(...conjunction(where, value, `${path}.`));
	}
	return parts;
}

/** Adds the filter's condition to `where`; 400 invalidFilter for what cannot be read or is not supported. */
export function addFilter(where: Where, filter: string): void {
	let parsed: Expression[];
	try {
		parsed = [...new SCIMMY.Types.Filter(filter)] as Expression[];
	} catch (err) {
		throw scimErrors.invalidFilter(`The filter cannot be read: ${(err as Error).message}. Example: userName eq "ada@example.com".`);
	}
	if (parsed.length > MAX_ALTERNATIVES) throw scimErrors.invalidFilter(`The filter has more than ${MAX_ALTERNATIVES} alternatives (or-ed terms): split the query.`);
	const alternatives = parsed.map((expression) => `(${conjunction(where, expression).join(' AND ') || 'TRUE'})`);
	where.and(() => (alternatives.length === 1 ? alternatives[0] : `(${alternatives.join(' OR ')})`));
}
