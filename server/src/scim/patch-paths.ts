import { ENTERPRISE_SCHEMA, USER_SCHEMA } from './schema';

/**
 * What of a PATCH operation the LMS keeps (SPEC §21): attribute names and paths are
 * case-insensitive (RFC 7643 §2.1), so they are written as scim/schema.ts names them before scimmy
 * (which matches them exactly) reads them; an operation on an attribute the LMS does not keep
 * (Entra's phoneNumbers, addresses, preferredLanguage; Okta's password; …) is accepted and
 * ignored, so that a PATCH never fails whole because of one of them. A few shapes are written so
 * that scimmy applies them as RFC 7644 §3.5.2 means: the enterprise manager (Entra sends its id
 * as a bare string; scimmy cannot reach `manager.value`), and a `replace` of a whole complex
 * attribute, which changes the sub-attributes given and leaves the others.
 */

type Kept = { name: string; sub?: Record<string, string>; complex?: true };

/** The kept attributes, lower-cased → as the schema names them, with their sub-attributes. */
const KEPT: Record<string, Kept> = {
	username: { name: 'userName' },
	name: { name: 'name', sub: { formatted: 'formatted', givenname: 'givenName', familyname: 'familyName' }, complex: true },
	displayname: { name: 'displayName' },
	title: { name: 'title' },
	active: { name: 'active' },
	emails: { name: 'emails', sub: { value: 'value', type: 'type', primary: 'primary' } },
	externalid: { name: 'externalId' },
	// Read-only, but kept: scimmy answers a change of them with its mutability error.
	id: { name: 'id' },
	meta: { name: 'meta' },
	schemas: { name: 'schemas' },
};

/** The enterprise extension's kept attributes (SPEC §21's profile). */
const ENTERPRISE_KEPT: Record<string, Kept> = {
	employeenumber: { name: 'employeeNumber' },
	department: { name: 'department' },
	title: { name: 'title' },
	manager: { name: 'manager', sub: { value: 'value' }, complex: true },
};

const CORE_PREFIX = `${USER_SCHEMA.toLowerCase()}:`;
const ENTERPRISE_PREFIX = `${ENTERPRISE_SCHEMA.toLowerCase()}:`;

/** A kept path, split: the attribute's full name (behind the extension's URN if its), its filter, its sub-attribute. */
interface Path {
	attribute: string;
	kept: Kept;
	filter: string;
	sub?: string;
}

/** `name.givenName` (any case, optionally behind the core or enterprise schema's URN) as the schema names it; undefined when not kept. */
function keptPath(path: string): Path | undefined {
	let rest = path.trim();
	let table = KEPT;
	let urn = '';
	if (rest.toLowerCase().startsWith(CORE_PREFIX)) rest = rest.slice(CORE_PREFIX.length);
	else if (rest.toLowerCase().startsWith(ENTERPRISE_PREFIX)) {
		rest = rest.slice(ENTERPRISE_PREFIX.length);
		table = ENTERPRISE_KEPT;
		urn = `${ENTERPRISE_SCHEMA}:`;
	}
	const match = /^([^.[]+)(\[.*\])?(?:\.([^.[\]]+))?$/s.exec(rest);
	if (!match) return undefined;
	const [, top, filter = '', sub] = match;
	const kept = table[top.toLowerCase()];
	if (kept === undefined) return undefined;
	const attribute = urn + kept.name;
	if (sub === undefined) return { attribute, kept, filter };
	const subName = kept.sub?.[sub.toLowerCase()];
	return subName === undefined ? undefined : { attribute, kept, filter, sub: subName };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Of a complex attribute's value, the kept sub-attributes as the schema names them (Entra's bare manager id is its value). */
function keptSubs(kept: Kept, value: unknown): unknown {
	if (kept.name === 'manager' && typeof value === 'string') return { value };
	if (!isObject(value) || kept.sub === undefined) return value;
	const out: Record<string, unknown> = {};
	for (const [key, inner] of Object.entries(value)) {
		const sub = kept.sub[key.toLowerCase()];
		if (sub !== undefined) out[sub] = inner;
	}
	return out;
}

/** The enterprise extension's object as the schema names it; kept attributes only. */
function keptEnterprise(value: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [key, inner] of Object.entries(value)) {
		const kept = ENTERPRISE_KEPT[key.toLowerCase()];
		if (kept !== undefined) out[kept.name] = keptSubs(kept, inner);
	}
	return out;
}

/** A path-less value's keys as the schema names them (dotted keys and the URNs' objects included); others dropped. */
function keptValue(value: Record<string, unknown>): Record<string, unknown> {
	const kept: Record<string, unknown> = {};
	for (const [key, inner] of Object.entries(value)) {
		const lower = key.toLowerCase();
		if (lower === USER_SCHEMA.toLowerCase() && isObject(inner)) {
			Object.assign(kept, keptValue(inner));
			continue;
		}
		if (lower === ENTERPRISE_SCHEMA.toLowerCase() && isObject(inner)) {
			const enterprise = keptEnterprise(inner);
			if (Object.keys(enterprise).length > 0) kept[ENTERPRISE_SCHEMA] = { ...(kept[ENTERPRISE_SCHEMA] as object), ...enterprise };
			continue;
		}
		const path = keptPath(key);
		if (path === undefined || path.filter !== '') continue;
		// The manager is reached whole: scimmy cannot reach `manager.value`.
		if (path.kept.name === 'manager') kept[path.attribute] = path.sub === undefined ? keptSubs(path.kept, inner) : { value: inner };
		else if (path.sub === undefined) kept[path.attribute] = keptSubs(path.kept, inner);
		else kept[`${path.attribute}.${path.sub}`] = inner;
	}
	return kept;
}

function pathless(operation: Record<string, unknown>): Record<string, unknown> {
	const { path: _path, ...rest } = operation;
	return rest;
}

/**
 * The operation as scimmy should read it, or undefined when it names only what the LMS does not
 * keep. A malformed operation is passed on as it is, for scimmy to refuse.
 */
export function keptOperation(operation: unknown): unknown {
	if (!isObject(operation)) return operation;
	const { path, value } = operation as { path?: unknown; value?: unknown };
	const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : undefined;
	if (typeof path === 'string') {
		// The extension itself as the path: its value is a path-less value under its URN.
		if (path.trim().toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase() && op !== 'remove') {
			const kept = isObject(value) ? keptEnterprise(value) : {};
			return Object.keys(kept).length === 0 ? undefined : { ...pathless(operation), value: { [ENTERPRISE_SCHEMA]: kept } };
		}
		const kept = keptPath(path);
		if (kept === undefined) return undefined;
		if (kept.kept.name === 'manager') {
			const { value: _dropped, ...rest } = operation;
			if (op === 'remove') return { ...rest, path: kept.attribute };
			return { ...operation, path: kept.attribute, value: kept.sub === undefined ? keptSubs(kept.kept, value) : { value } };
		}
		const written = kept.attribute + kept.filter + (kept.sub === undefined ? '' : `.${kept.sub}`);
		// A replace of a whole complex attribute changes the sub-attributes given (RFC 7644 §3.5.2.3): as a path-less value it does.
		if (op === 'replace' && kept.kept.complex && kept.filter === '' && kept.sub === undefined && isObject(value)) {
			return { ...pathless(operation), value: { [kept.attribute]: keptSubs(kept.kept, value) } };
		}
		if (!('value' in operation) || !(kept.sub === undefined && kept.kept.complex)) return { ...operation, path: written };
		return { ...operation, path: written, value: keptSubs(kept.kept, value) };
	}
	if (path === undefined && isObject(value)) {
		const kept = keptValue(value);
		return Object.keys(kept).length === 0 ? undefined : { ...operation, value: kept };
	}
	return operation;
}
