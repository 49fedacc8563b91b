import SCIMMY from 'scimmy';

import { scimErrors } from '../errors';
import { MEMBERS_PER_REQUEST } from './change';
import { GROUP_SCHEMA } from './resource';

/** A Group from a POST or PUT body: what scimmy's Group schema (RFC 7643 §4.2) coerced. */
export interface GroupBody {
	displayName: string;
	externalId?: string;
	members?: string[];
}

/**
 * The user ids of a `members` value: an array of `{ "value": "usr_…" }` (`display`, `$ref`,
 * `type` are read and ignored), at most MEMBERS_PER_REQUEST, checked before anything is read.
 */
export function memberIdsOf(value: unknown, where = 'members'): string[] {
	const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
	if (list.length > MEMBERS_PER_REQUEST) throw scimErrors.invalidValue(`${where} holds ${list.length} members; send at most ${MEMBERS_PER_REQUEST} per request (the rest in PATCH add operations).`);
	return list.map((member: unknown) => {
		const id: unknown = member !== null && typeof member === 'object' ? Object.entries(member as Record<string, unknown>).find(([k]) => k.toLowerCase() === 'value')?.[1] : undefined;
		if (typeof id !== 'string' || id === '') throw scimErrors.invalidValue(`Each of ${where} needs a "value": the user's SCIM id, e.g. { "value": "usr_…" }.`);
		return id;
	});
}

/**
 * A POST or PUT body checked and coerced by scimmy's Group schema: `schemas` must name the
 * Group schema, displayName is required, attribute names in any case; attributes the schema does
 * not have are ignored (RFC 7644 §3.3).
 */
export function groupFromBody(body: Record<string, unknown>): GroupBody {
	const schemas = body.schemas;
	if (!Array.isArray(schemas) || !schemas.includes(GROUP_SCHEMA)) throw scimErrors.invalidSyntax(`The body's "schemas" must list "${GROUP_SCHEMA}".`);
	const members = Object.entries(body).find(([k]) => k.toLowerCase() === 'members')?.[1];
	const ids = memberIdsOf(members);
	let coerced: { displayName?: string; externalId?: string };
	try {
		coerced = { ...new SCIMMY.Schemas.Group(Object.fromEntries(Object.entries(body).filter(([k]) => k.toLowerCase() !== 'members')), 'in') };
	} catch (err) {
		if (err instanceof SCIMMY.Types.Error) throw err;
		throw scimErrors.invalidValue(`${(err as Error).message}.`);
	}
	if (typeof coerced.displayName !== 'string' || coerced.displayName.trim() === '') throw scimErrors.invalidValue("displayName is required: the group's name.");
	return { displayName: coerced.displayName.trim(), externalId: coerced.externalId, members: members === undefined ? undefined : ids };
}
