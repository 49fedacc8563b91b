import { USER_SCHEMA } from './schema';

/**
 * What of a PATCH operation the LMS keeps (SPEC §21): attribute names and paths are
 * case-insensitive (RFC 7643 §2.1), so they are written as scim/schema.ts names them before scimmy
 * (which matches them exactly) reads them; an operation on an attribute the LMS does not keep
 * (Entra's phoneNumbers, addresses, preferredLanguage; Okta's password; …) is accepted and
 * ignored, so that a PATCH never fails whole because of one of them.
 */

/** The kept attributes, lower-cased → as the schema names them, with their sub-attributes. */
const KEPT: Record<string, { name: string; sub?: Record<string, string> }> = {
	username: { name: 'userName' },
	name: { name: 'name', sub: { formatted: 'formatted', givenname: 'givenName', familyname: 'familyName' } },
	displayname: { name: 'displayName' },
	active: { name: 'active' },
	emails: { name: 'emails', sub: { value: 'value', type: 'type', primary: 'primary' } },
	externalid: { name: 'externalId' },
	// Read-only, but kept: scimmy answers a change of them with its mutability error.
	id: { name: 'id' },
	meta: { name: 'meta' },
	schemas: { name: 'schemas' },
};

const CORE_PREFIX = `${USER_SCHEMA.toLowerCase()}:`;

/** `name.givenName` (any case, optionally behind the core schema's URN) as the schema names it; undefined when not kept. */
function keptPath(path: string): string | undefined {
	let rest = path.trim();
	if (rest.toLowerCase().startsWith(CORE_PREFIX)) rest = rest.slice(CORE_PREFIX.length);
	const match = /^([^.[]+)(\[.*\])?(?:\.([^.[\]]+))?$/s.exec(rest);
	if (!match) return undefined;
	const [, top, filter = '', sub] = match;
	const attribute = KEPT[top.toLowerCase()];
	if (attribute === undefined) return undefined;
	if (sub === undefined) return attribute.name + filter;
	const subName = attribute.sub?.[sub.toLowerCase()];
	return subName === undefined ? undefined : `${attribute.name}${filter}.${subName}`;
}

/** A path-less value's keys as the schema names them (dotted keys and the core URN's object included); others dropped. */
function keptValue(value: Record<string, unknown>): Record<string, unknown> {
	const kept: Record<string, unknown> = {};
	for (const [key, inner] of Object.entries(value)) {
		if (key.toLowerCase() === USER_SCHEMA.toLowerCase() && inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
			Object.assign(kept, keptValue(inner as Record<string, unknown>));
			continue;
		}
		const path = keptPath(key);
		if (path !== undefined && !path.includes('[')) kept[path] = inner;
	}
	return kept;
}

/**
 * The operation as scimmy should read it, or undefined when it names only what the LMS does not
 * keep. A malformed operation is passed on as it is, for scimmy to refuse.
 */
export function keptOperation(operation: unknown): unknown {
	if (operation === null || typeof operation !== 'object' || Array.isArray(operation)) return operation;
	const { path, value } = operation as { path?: unknown; value?: unknown };
	if (typeof path === 'string') {
		const kept = keptPath(path);
		return kept === undefined ? undefined : { ...operation, path: kept };
	}
	if (path === undefined && value !== null && typeof value === 'object' && !Array.isArray(value)) {
		const kept = keptValue(value as Record<string, unknown>);
		return Object.keys(kept).length === 0 ? undefined : { ...operation, value: kept };
	}
	return operation;
}
