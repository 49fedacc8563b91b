import type { RequestHandler } from 'express';

import { problems } from '../common/problem';
import { callerOf } from '../http/auth';
import { findEvent, serializeEvent } from './feed';
import { visibleTypes } from './list';
import { scopeOf } from './types';

/** GET /api/v1/events/{id}: one event the feed has served (or would serve now). */
export const getEvent: RequestHandler = async (req, res) => {
	const caller = callerOf(res);
	const visible = visibleTypes(caller.apiKey.scopeList);
	const row = await findEvent(caller.organization.id, String(req.params.id));
	if (!row) throw problems.notFound('event');
	if (!visible.includes(row.type)) throw problems.insufficientScope(scopeOf(row.type));
	res.json(serializeEvent(row));
};
