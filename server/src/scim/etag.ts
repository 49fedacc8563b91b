import type { Request } from 'express';

import type { UserRow } from '../users/queries';
import { scimErrors } from './errors';
import { versionOf } from './resource';

const opaque = (tag: string) => tag.trim().replace(/^W\//, '');

/**
 * If-Match on PUT, PATCH and DELETE (RFC 7644 §3.14, RFC 9110 §13.1.1 with weak comparison, as
 * our tags are weak): the write goes ahead only if the user is still at a version the client
 * names, or `*`; otherwise 412 and nothing changes. Checked when the user is read, and again on
 * the row the change has locked (users/change.ts), so a change by another door in between is
 * not overwritten.
 */
export function checkIfMatch(req: Request, user: Pick<UserRow, 'updatedAt'>): void {
	const header = req.get('if-match');
	if (header === undefined) return;
	const tags = header.split(',').map(opaque);
	if (tags.includes('*') || tags.includes(opaque(versionOf(user)))) return;
	throw scimErrors.preconditionFailed();
}

/**
 * If-None-Match on GET (RFC 7644 §3.14, RFC 9110 §13.1.2, weak comparison): the client already
 * holds this version (or asks with `*`), so the answer is 304 with the ETag and no body.
 */
export function notModified(req: Request, user: Pick<UserRow, 'updatedAt'>): boolean {
	const header = req.get('if-none-match');
	if (header === undefined) return false;
	const tags = header.split(',').map(opaque);
	return tags.includes('*') || tags.includes(opaque(versionOf(user)));
}
