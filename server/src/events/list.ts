import type { RequestHandler } from 'express';
import Joi from 'joi';

import type { Scope } from '../api-keys/model';
import { problems } from '../common/problem';
import { callerOf } from '../http/auth';
import { publicOrigin } from '../http/public-url';
import { integerParam, parseQuery, type QuerySchema } from '../http/validate';
import { EVENT_ID, eventJson, readFeed } from './feed';
import { EVENT_SCOPES, EVENT_TYPES, scopeOf, TYPE_PREFIXES, typesNamedBy, typesVisibleTo, type EventType } from './types';

const DEFAULT_EVENT_LIMIT = 50;
const MAX_EVENT_LIMIT = 100;

const TYPE_LIST = `one or more of ${[...EVENT_TYPES, ...TYPE_PREFIXES].join(', ')}, separated by commas`;

/** The feed's query (also its document's parameters). */
export const eventQuery: QuerySchema = {
	// The handler answers 400 for an `after` that is not an event id of the organization (events/feed.ts).
	after: Joi.string()
		.max(100)
		.meta({ openapi: { pattern: EVENT_ID.source } })
		.description('Only events after this one (an id from the feed). Omitted: from the oldest event kept.'),
	type: Joi.string()
		.max(1000)
		.custom((value: string, helpers) => {
			const named = value.split(',').map((item) => typesNamedBy(item.trim()));
			if (named.some((types) => types === undefined)) return helpers.error('any.invalid');
			return [...new Set(named.flat() as EventType[])];
		})
		.messages({ 'any.invalid': `type must be ${TYPE_LIST}`, 'string.empty': `type must be ${TYPE_LIST}` })
		.description(`Comma-separated types (${EVENT_TYPES.join(', ')}) or prefixes (${TYPE_PREFIXES.join(', ')}).`),
	limit: integerParam(1, MAX_EVENT_LIMIT, `Events per answer, 1 to ${MAX_EVENT_LIMIT}.`, DEFAULT_EVENT_LIMIT),
};

/** The event types a key's scopes let it read; 403 if none. */
export function visibleTypes(scopes: readonly Scope[]): EventType[] {
	const visible = typesVisibleTo(scopes);
	if (visible.length === 0) throw problems.insufficientScope(EVENT_SCOPES[0], ...EVENT_SCOPES.slice(1));
	return visible;
}

/** GET /api/v1/events: the organization's feed, read by cursor (SPEC §11). */
export const listEvents: RequestHandler = async (req, res) => {
	const caller = callerOf(res);
	// Scope before validation, as for every endpoint: a key that can see no event learns that first.
	const visible = visibleTypes(caller.apiKey.scopeList);
	const { after, type, limit = DEFAULT_EVENT_LIMIT } = parseQuery<{ after?: string; type?: EventType[]; limit?: number }>(
		eventQuery,
		req.query,
	);
	const hidden = type?.find((t) => !visible.includes(t));
	if (hidden) throw problems.insufficientScope(scopeOf(hidden));
	// Ask for exactly what was named; with no filter, everything the key may see (no filter at all when that is every type).
	const types = type ?? (visible.length === EVENT_TYPES.length ? undefined : visible);
	const { rows, hasMore } = await readFeed({ organizationId: caller.organization.id, after, types, limit });
	if (hasMore) {
		const query = new URLSearchParams({ ...(req.query as Record<string, string>), after: rows[rows.length - 1].id });
		res.setHeader('Link', `<${publicOrigin(req)}${req.baseUrl}${req.path}?${query.toString()}>; rel="next"`);
	}
	res.type('application/json').send(`{"data":[${rows.map(eventJson).join(',')}],"has_more":${hasMore}}`);
};
