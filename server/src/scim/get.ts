import type { RequestHandler } from 'express';

import { isIdOf } from '../common/id-shapes';
import { readOne } from '../db/table';
import { callerOf } from '../http/auth';
import { USERS, type UserRow } from '../users/queries';
import { scimErrors, sendScim } from './errors';
import { projectionOf } from './attributes';
import { notModified } from './etag';
import { scimBase, userResource, versionOf } from './resource';

/**
 * The user with this id in the caller's organization; another organization's, no such id, or a
 * user deleted through SCIM (SPEC §21) is the same 404.
 */
export async function findUser(organizationId: string, id: string): Promise<UserRow> {
	const row = isIdOf('user', id) ? await readOne(USERS, organizationId, id) : undefined;
	stillThere(row);
	return row;
}

/** Throws 404 unless the user exists and is not deleted through SCIM; also run on the locked row, as a DELETE may have come between. */
export function stillThere<T extends Pick<UserRow, 'scimDeletedAt'>>(row: T | undefined): asserts row is T {
	if (!row || row.scimDeletedAt !== null) throw scimErrors.notFound('user');
}

/** Sends one user with its ETag (RFC 7644 §3.14). */
export function sendUser(res: Parameters<RequestHandler>[1], status: number, row: UserRow, headers: Record<string, string> = {}): void {
	const project = projectionOf(res.req.query);
	sendScim(res, status, project(userResource(row, scimBase(res.req))), { ETag: versionOf(row), ...headers });
}

/** GET /scim/v2/Users/{id}; 304 when If-None-Match names its current version. */
export const getUser: RequestHandler = async (req, res) => {
	const row = await findUser(callerOf(res).organization.id, String(req.params.id));
	if (notModified(req, row)) {
		res.status(304).setHeader('ETag', versionOf(row));
		res.end();
		return;
	}
	sendUser(res, 200, row);
};
