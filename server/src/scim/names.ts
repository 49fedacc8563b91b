import type { UserResource } from './schema';

/**
 * The name parts an identity provider writes (SPEC §21: "Anne Marie" / "van der Berg" stays so),
 * kept as JSON text in users.scim_names, each exactly as sent and only those sent. The LMS user's
 * one `name` is derived from them on a write (translate.ts); a user SCIM never named (created
 * through the API) shows its name split at the last space.
 */
export interface NameParts {
	formatted?: string;
	givenName?: string;
	familyName?: string;
	displayName?: string;
}

const KEYS = ['formatted', 'givenName', 'familyName', 'displayName'] as const;

/** The parts a resource holds (undefined ones left out). */
export function partsOf(resource: UserResource | undefined): NameParts {
	const parts: NameParts = {};
	const all = { formatted: resource?.name?.formatted, givenName: resource?.name?.givenName, familyName: resource?.name?.familyName, displayName: resource?.displayName };
	for (const key of KEYS) if (all[key] !== undefined) parts[key] = all[key];
	return parts;
}

export function sameParts(a: NameParts, b: NameParts): boolean {
	return KEYS.every((key) => a[key] === b[key]);
}

/** Each part a string of at most 255 characters; undefined when one is not, with its name. */
export function tooLongPart(parts: NameParts): string | undefined {
	return KEYS.find((key) => parts[key] !== undefined && parts[key].length > 255);
}

export const partsText = (parts: NameParts): string => JSON.stringify(Object.fromEntries(KEYS.filter((k) => parts[k] !== undefined).map((k) => [k, parts[k]])));

/** The parts SCIM shows for a user: as written, else the LMS name split at its last space ("Grace Brewster" + "Hopper"). */
export function shownParts(user: { name: string; scimNames: string | null }): NameParts {
	if (user.scimNames !== null) return JSON.parse(user.scimNames) as NameParts;
	const cut = user.name.lastIndexOf(' ');
	const split = cut <= 0 ? { givenName: user.name } : { givenName: user.name.slice(0, cut), familyName: user.name.slice(cut + 1) };
	return { formatted: user.name, ...split, displayName: user.name };
}
