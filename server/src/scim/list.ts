import type { RequestHandler } from 'express';

import { countedTotal } from '../db/list-counts';
import { countRows, readRange } from '../db/table';
import { Where } from '../db/where';
import { callerOf } from '../http/auth';
import { USERS } from '../users/queries';
import { projectionOf } from './attributes';
import { sendScim } from './errors';
import { addFilter } from './filter';
import { scimBase, userResource } from './resource';
import { listRequest, listResponse } from './list-query';

/** GET /scim/v2/Users?filter=…&startIndex=…&count=… in creation order, 1-based. */
export const listUsers: RequestHandler = async (req, res) => {
	const query = req.query as Record<string, unknown>;
	const { filter, startIndex, count } = listRequest(query);
	const project = projectionOf(query);
	const organizationId = callerOf(res).organization.id;
	// Users deleted through SCIM (SPEC §21) are no SCIM resources: no filter finds them.
	const where = new Where().equals('organization_id', organizationId).and(() => 'scim_deleted_at IS NULL');
	if (filter !== undefined) addFilter(where, filter);
	// Unfiltered, the organization's kept counter less its SCIM-deleted users answers; filtered, the index counts its matches.
	const total = filter === undefined ? unfilteredTotal(organizationId) : countRows(USERS, where);
	const [rows, totalResults] = await Promise.all([count === 0 ? [] : readRange(USERS, where, startIndex - 1, count), total]);
	const base = scimBase(req);
	sendScim(res, 200, listResponse(totalResults, rows.map((row) => project(userResource(row, base))), startIndex));
};

async function unfilteredTotal(organizationId: string): Promise<number> {
	const deleted = new Where().equals('organization_id', organizationId).and(() => 'scim_deleted_at IS NOT NULL');
	const [all, gone] = await Promise.all([countedTotal(organizationId, { list: 'users', filter: '' }), countRows(USERS, deleted)]);
	return all - gone;
}
