import type { Request } from 'express';

import { epochMs, iso } from '../common/time';
import { publicOrigin } from '../http/public-url';
import type { UserRow } from '../users/queries';
import { USER_SCHEMA, type UserResource } from './schema';

/** Where /scim/v2 is: under PUBLIC_URL when set, else as the client reached it. */
export function scimBase(req: Request): string {
	return `${publicOrigin(req)}/scim/v2`;
}

/**
 * The name's parts as SCIM shows them. The LMS keeps one name; its last word is the family name
 * and the rest the given name ("Grace Brewster Hopper" → "Grace Brewster" + "Hopper"), which
 * reads back what Okta and Entra send for the common case of a one-word family name.
 */
function nameParts(name: string): { givenName: string; familyName?: string } {
	const cut = name.lastIndexOf(' ');
	return cut <= 0 ? { givenName: name } : { givenName: name.slice(0, cut), familyName: name.slice(cut + 1) };
}

/**
 * The weak ETag of a user (RFC 7644 §3.14): its updated_at to the millisecond, which every change
 * through any door (API, SCIM, CLI) moves.
 */
export function versionOf(user: Pick<UserRow, 'updatedAt'>): string {
	return `W/"${epochMs(user.updatedAt)}"`;
}

/** A user as SCIM shows it (RFC 7643 §4.1, with the attributes of scim/schema.ts). */
export function userResource(user: UserRow, base: string): UserResource & { id: string; meta: Record<string, unknown> } {
	return {
		schemas: [USER_SCHEMA],
		id: user.id,
		...(user.externalId === null ? {} : { externalId: user.externalId }),
		userName: user.email,
		name: { formatted: user.name, ...nameParts(user.name) },
		displayName: user.name,
		active: user.status === 'active',
		emails: [{ value: user.email, type: 'work', primary: true }],
		meta: {
			resourceType: 'User',
			created: iso(user.createdAt),
			lastModified: iso(user.updatedAt),
			location: `${base}/Users/${user.id}`,
			version: versionOf(user),
		},
	};
}
