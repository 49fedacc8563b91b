import type { RequestHandler } from 'express';

import { problems } from '../common/problem';
import { callerOf } from '../http/auth';
import { parseQuery } from '../http/validate';
import { feedHead, findEvent, serializeEvent } from './feed';
import { visibleTypes } from './list';
import { EVENT_TYPES } from './types';

/** GET /api/v1/events/{id}: one event the feed has served (or would serve now) to this key. */
export const getEvent: RequestHandler = async (req, res) => {
	const caller = callerOf(res);
	const visible = visibleTypes(caller.apiKey.scopeList);
	const row = await findEvent(caller.organization.id, String(req.params.id));
	// One answer for every event this key cannot see, whether it is another organization's, of a
	// type outside the key's scopes, or none at all (issue 39): a 403 here would confirm that the
	// id exists, and so tell the key about events it may not read.
	if (!row || !visible.includes(row.type)) throw problems.notFound('event');
	res.json(serializeEvent(row));
};

/**
 * GET /api/v1/events/head (SPEC §19): `{ "after": <newest event this key can see, or null> }`,
 * so that a reader starts from now with one request instead of walking the retained feed.
 */
export const getFeedHead: RequestHandler = async (req, res) => {
	const caller = callerOf(res);
	const visible = visibleTypes(caller.apiKey.scopeList);
	parseQuery({}, req.query);
	const after = await feedHead(caller.organization.id, visible.length === EVENT_TYPES.length ? undefined : visible);
	res.json({ after });
};
