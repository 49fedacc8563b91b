import type { RequestHandler } from 'express';

import { countedTotal } from '../db/list-counts';
import { countRows, readRange } from '../db/table';
import { Where } from '../db/where';
import { callerOf } from '../http/auth';
import { USERS } from '../users/queries';
import { projectionOf } from './attributes';
import { scimErrors, sendScim } from './errors';
import { addFilter } from './filter';
import { scimBase, userResource } from './resource';
import { LIST_RESPONSE } from './schema';

/** At most this many users per answer (ServiceProviderConfig's filter.maxResults). */
export const MAX_RESULTS = 100;

/** One query parameter as a single string, or undefined; a repeated one is refused. */
function single(query: Record<string, unknown>, name: string): string | undefined {
	const value = query[name];
	if (value === undefined) return undefined;
	if (typeof value !== 'string') throw scimErrors.invalidValue(`Give ${name} once.`);
	return value;
}

/** startIndex and count (RFC 7644 §3.4.2.4): integers; below 1 / below 0 read as 1 / 0; count capped at MAX_RESULTS. */
function integer(query: Record<string, unknown>, name: string, fallback: number): number {
	const text = single(query, name);
	if (text === undefined) return fallback;
	if (!/^-?\d{1,15}$/.test(text.trim())) throw scimErrors.invalidValue(`${name} must be an integer, e.g. ${name}=${fallback}.`);
	return Number(text.trim());
}

/** GET /scim/v2/Users?filter=…&startIndex=…&count=… in creation order, 1-based. */
export const listUsers: RequestHandler = async (req, res) => {
	const query = req.query as Record<string, unknown>;
	const filter = single(query, 'filter');
	const project = projectionOf(query);
	const startIndex = Math.max(1, integer(query, 'startIndex', 1));
	const count = Math.min(MAX_RESULTS, Math.max(0, integer(query, 'count', MAX_RESULTS)));
	const organizationId = callerOf(res).organization.id;
	// Users deleted through SCIM (SPEC §21) are no SCIM resources: no filter finds them.
	const where = new Where().equals('organization_id', organizationId).and(() => 'scim_deleted_at IS NULL');
	if (filter !== undefined && filter.trim() !== '') addFilter(where, filter);
	// Unfiltered, the organization's kept counter less its SCIM-deleted users answers; filtered, the index counts its matches.
	const total = filter === undefined || filter.trim() === '' ? unfilteredTotal(organizationId) : countRows(USERS, where);
	const [rows, totalResults] = await Promise.all([count === 0 ? [] : readRange(USERS, where, startIndex - 1, count), total]);
	const base = scimBase(req);
	sendScim(res, 200, {
		schemas: [LIST_RESPONSE],
		totalResults,
		Resources: rows.map((row) => project(userResource(row, base))),
		startIndex,
		itemsPerPage: rows.length,
	});
};

async function unfilteredTotal(organizationId: string): Promise<number> {
	const deleted = new Where().equals('organization_id', organizationId).and(() => 'scim_deleted_at IS NOT NULL');
	const [all, gone] = await Promise.all([countedTotal(organizationId, { list: 'users', filter: '' }), countRows(USERS, deleted)]);
	return all - gone;
}
