import type { Request, RequestHandler, Response } from 'express';

import { isIdOf } from '../../common/id-shapes';
import { readOne } from '../../db/table';
import { GROUPS, type GroupRow } from '../../groups/queries';
import { callerOf } from '../../http/auth';
import { scimErrors, sendScim } from '../errors';
import { notModified } from '../etag';
import { scimBase, versionOf } from '../resource';
import { groupProjection } from './attributes';
import { groupResource, membersOf } from './resource';

/** The group with this id in the caller's organization; another organization's, or no such id, is the same 404. */
export async function findGroup(organizationId: string, id: string): Promise<GroupRow> {
	const row = isIdOf('group', id) ? await readOne(GROUPS, organizationId, id) : undefined;
	if (!row) throw scimErrors.notFound('group');
	return row;
}

/** Sends one group with its ETag, its members read only when the request wants them. */
export async function sendGroup(req: Request, res: Response, status: number, row: GroupRow, headers: Record<string, string> = {}): Promise<void> {
	const base = scimBase(req);
	const { members, project } = groupProjection(req);
	const resource = groupResource(row, members ? (await membersOf([row.id], base)).get(row.id) : undefined, base);
	sendScim(res, status, project(resource), { ETag: versionOf(row), ...headers });
}

/** GET /scim/v2/Groups/{id}; 304 when If-None-Match names its current version (members included). */
export const getGroup: RequestHandler = async (req, res) => {
	const row = await findGroup(callerOf(res).organization.id, String(req.params.id));
	if (notModified(req, row)) {
		res.status(304).setHeader('ETag', versionOf(row));
		res.end();
		return;
	}
	await sendGroup(req, res, 200, row);
};
