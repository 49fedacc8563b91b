import type { RequestHandler } from 'express';

import { isIdOf } from '../common/id-shapes';
import { readOne } from '../db/table';
import { callerOf } from '../http/auth';
import { USERS, type UserRow } from '../users/queries';
import { scimErrors, sendScim } from './errors';
import { projectionOf } from './attributes';
import { notModified } from './etag';
import { scimBase, userResource, versionOf } from './resource';

/** The user with this id in the caller's organization; another organization's, or no such id, is the same 404. */
export async function findUser(organizationId: string, id: string): Promise<UserRow> {
	const row = isIdOf('user', id) ? await readOne(USERS, organizationId, id) : undefined;
	if (!row) throw scimErrors.notFound('user');
	return row;
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
