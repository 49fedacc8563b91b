import type { RequestHandler } from 'express';

import { countRows, readRange } from '../../db/table';
import { Where } from '../../db/where';
import { GROUPS } from '../../groups/queries';
import { callerOf } from '../../http/auth';
import { sendScim } from '../errors';
import { listRequest, listResponse } from '../list-query';
import { scimBase } from '../resource';
import { groupProjection } from './attributes';
import { addGroupFilter } from './filter';
import { groupResource, membersOf } from './resource';

/**
 * GET /scim/v2/Groups?filter=…&startIndex=…&count=…&excludedAttributes=members, in creation
 * order, 1-based. The page's members are read in one statement, and not at all when excluded.
 */
export const listGroups: RequestHandler = async (req, res) => {
	const { filter, startIndex, count } = listRequest(req.query);
	const projection = groupProjection(req);
	const where = new Where().equals('organization_id', callerOf(res).organization.id);
	if (filter !== undefined) addGroupFilter(where, filter);
	const [rows, totalResults] = await Promise.all([count === 0 ? [] : readRange(GROUPS, where, startIndex - 1, count), countRows(GROUPS, where)]);
	const base = scimBase(req);
	const members = projection.members ? await membersOf(rows.map((r) => r.id), base) : undefined;
	sendScim(res, 200, listResponse(totalResults, rows.map((row) => projection.project(groupResource(row, members?.get(row.id), base))), startIndex));
};
