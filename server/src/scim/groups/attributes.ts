import type { Request } from 'express';

import { scimErrors } from '../errors';
import { GROUP_SCHEMA } from './resource';

type Resource = Record<string, unknown>;

/** A query parameter's attribute names, lower-cased, without the Group schema's URN prefix. */
function names(req: Request, parameter: string): Set<string> | undefined {
	const value = req.query[parameter];
	if (value === undefined) return undefined;
	if (typeof value !== 'string' || value.length > 1000) throw scimErrors.invalidValue(`Give ${parameter} once, as attribute names separated by commas (at most 1,000 characters).`);
	const prefix = `${GROUP_SCHEMA.toLowerCase()}:`;
	return new Set(
		value
			.split(',')
			.map((name) => name.trim().toLowerCase())
			.map((name) => (name.startsWith(prefix) ? name.slice(prefix.length) : name))
			.map((name) => name.split('.')[0])
			.filter((name) => name !== ''),
	);
}

/**
 * What `attributes=` and `excludedAttributes=` (RFC 7644 §3.4.2.5) ask of a Group: whether its
 * members are wanted (so a request without them never reads them: Entra's
 * `excludedAttributes=members` on every lookup) and the projection of a resource. `id` and
 * `schemas` are always returned.
 */
export function groupProjection(req: Request): { members: boolean; project: (resource: Resource) => Resource } {
	const only = names(req, 'attributes');
	const excluded = only === undefined ? names(req, 'excludedAttributes') : undefined;
	const wanted = (name: string) => name === 'id' || name === 'schemas' || (only ? only.has(name.toLowerCase()) : !excluded?.has(name.toLowerCase()));
	return {
		members: wanted('members'),
		project: (resource) => (only === undefined && excluded === undefined ? resource : Object.fromEntries(Object.entries(resource).filter(([name]) => wanted(name)))),
	};
}
