import type { Request } from 'express';

import { epochMs, iso } from '../common/time';
import { publicOrigin } from '../http/public-url';
import type { UserRow } from '../users/queries';
import { shownParts } from './names';
import { ENTERPRISE_SCHEMA, USER_SCHEMA, type Enterprise, type UserResource } from './schema';

/** Where /scim/v2 is: under PUBLIC_URL when set, else as the client reached it. */
export function scimBase(req: Request): string {
	return `${publicOrigin(req)}/scim/v2`;
}

/**
 * The weak ETag of a user or a group (RFC 7644 §3.14): its updated_at to the millisecond, which every change
 * through any door (API, SCIM, CLI) moves.
 */
export function versionOf(user: Pick<UserRow, 'updatedAt'>): string {
	return `W/"${epochMs(user.updatedAt)}"`;
}

/** A user as SCIM shows it (RFC 7643 §4.1, with the attributes of scim/schema.ts): what was written, as written. */
export function userResource(user: UserRow, base: string): UserResource & { id: string; meta: Record<string, unknown> } {
	const { displayName, ...name } = shownParts(user);
	const enterprise: Enterprise = {
		...(user.employeeNumber === null ? {} : { employeeNumber: user.employeeNumber }),
		...(user.department === null ? {} : { department: user.department }),
		...(user.title === null ? {} : { title: user.title }),
		...(user.managerId === null ? {} : { manager: { value: user.managerId } }),
	};
	const extended = Object.keys(enterprise).length > 0;
	return {
		schemas: extended ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA],
		id: user.id,
		...(user.externalId === null ? {} : { externalId: user.externalId }),
		userName: user.username,
		...(Object.keys(name).length === 0 ? {} : { name }),
		...(displayName === undefined ? {} : { displayName }),
		...(user.title === null ? {} : { title: user.title }),
		active: user.status === 'active',
		emails: [{ value: user.email, type: 'work', primary: true }],
		...(extended ? { [ENTERPRISE_SCHEMA]: enterprise } : {}),
		meta: {
			resourceType: 'User',
			created: iso(user.createdAt),
			lastModified: iso(user.updatedAt),
			location: `${base}/Users/${user.id}`,
			version: versionOf(user),
		},
	};
}
