import type { RequestHandler } from 'express';

import { countRows, readRange } from '../../db/table';
import { Where } from '../../db/where';
import { GROUPS } from '../../groups/queries';
import { callerOf } from '../../http/auth';
import { scimErrors, sendScim } from '../errors';
import { MAX_RESULTS } from '../list';
import { scimBase } from '../resource';
import { LIST_RESPONSE } from '../schema';
import { groupProjection } from './attributes';
import { addGroupFilter } from './filter';
import { groupResource, membersOf } from './resource';

function single(query: Record<string, unknown>, name: string): string | undefined {
	const value = query[name];
	if (value !== undefined && typeof value !== 'string') throw scimErrors.invalidValue(`Give ${name} once.`);
	return value;
}

function integer(query: Record<string, unknown>, name: string, fallback: number): number {
	const text = single(query, name);
	if (text === undefined) return fallback;
	if (!/^-?\d{1,15}$/.test(text.trim())) throw scimErrors.invalidValue(`${name} must be an integer, e.g. ${name}=${fallback}.`);
	return Number(text.trim());
}

/**
 * GET /scim/v2/Groups?filter=…&startIndex=…&count=…&excludedAttributes=members, in creation
 * order, 1-based. The page's members are read in one statement, and not at all when excluded.
 */
export const listGroups: RequestHandler = async (req, res) => {
	const query = req.query as Record<string, unknown>;
	const filter = single(query, 'filter');
	const startIndex = Math.max(1, integer(query, 'startIndex', 1));
	const count = Math.min(MAX_RESULTS, Math.max(0, integer(query, 'count', MAX_RESULTS)));
	const projection = groupProjection(req);
	const where = new Where().equals('organization_id', callerOf(res).organization.id);
	if (filter !== undefined && filter.trim() !== '') addGroupFilter(where, filter);
	const [rows, totalResults] = await Promise.all([count === 0 ? [] : readRange(GROUPS, where, startIndex - 1, count), countRows(GROUPS, where)]);
	const base = scimBase(req);
	const members = projection.members ? await membersOf(rows.map((r) => r.id), base) : undefined;
	sendScim(res, 200, {
		schemas: [LIST_RESPONSE],
		totalResults,
		Resources: rows.map((row) => projection.project(groupResource(row, members?.get(row.id), base))),
		startIndex,
		itemsPerPage: rows.length,
	});
};
