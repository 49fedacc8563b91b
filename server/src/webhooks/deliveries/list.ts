import type { RequestHandler } from 'express';
import Joi from 'joi';

import { isIdOf } from '../../common/id-shapes';
import { problems } from '../../common/problem';
import { callerOf } from '../../http/auth';
import { listEndpoint } from '../../http/list';
import { dateTimeParam } from '../../http/validate';
import { DELIVERY_STATUSES } from '../model';
import { findEndpoint, ownedBy } from '../service';
import { DELIVERIES, type DeliveryRow } from './queries';
import { DELIVERY_EVENT_TYPES, whereDeliveries } from './read';
import { serializeDelivery } from './serialize';

/** The endpoint in the path must be the calling key's (SPEC §22; and not deleted): else 404, as for GET /{id}. */
export const endpointOfPath: RequestHandler = async (req, res, next) => {
	const id = req.params.id;
	if (!isIdOf('webhookEndpoint', id) || !(await findEndpoint(ownedBy(callerOf(res)), id))) throw problems.notFound('webhook endpoint');
	next();
};

type Filters = { status: string; event_type: string; created_after: string; created_before: string };

/**
 * GET /api/v1/webhook_endpoints/{id}/deliveries: the usual envelope and paging, newest first,
 * filtered by `status`, `event_type` and a creation window (SPEC §22): deliveries/read.ts's one
 * condition, which Settings → Webhooks uses too.
 */
export const listDeliveries = listEndpoint<DeliveryRow, Filters>({
	table: DELIVERIES,
	filters: {
		status: Joi.string().valid(...DELIVERY_STATUSES).description('Only deliveries in this status.'),
		event_type: Joi.string()
			.valid(...DELIVERY_EVENT_TYPES)
			.description('Only deliveries of this event type (`webhook.test` for test events).'),
		created_after: dateTimeParam().description('ISO 8601 date-time with an offset. Only deliveries created strictly after it.'),
		created_before: dateTimeParam().description('ISO 8601 date-time with an offset. Only deliveries created strictly before it.'),
	},
	where: (where, { status, event_type, created_after, created_before }, _organizationId, params) => {
		whereDeliveries(where, params.id, {
			status,
			eventType: event_type,
			createdAfter: created_after === undefined ? undefined : new Date(created_after),
			createdBefore: created_before === undefined ? undefined : new Date(created_before),
		});
	},
	serialize: (row, caller) => serializeDelivery(row, caller.apiKey.scopeList),
});
