import type { RequestHandler } from 'express';
import Joi from 'joi';

import { isIdOf } from '../../common/id-shapes';
import { problems } from '../../common/problem';
import { callerOf } from '../../http/auth';
import { listEndpoint } from '../../http/list';
import { DELIVERY_STATUSES } from '../model';
import { findEndpoint, ownedBy } from '../service';
import { DELIVERIES, type DeliveryRow } from './queries';
import { serializeDelivery } from './serialize';

/** The endpoint in the path must be the calling key's (SPEC §22; and not deleted): else 404, as for GET /{id}. */
export const endpointOfPath: RequestHandler = async (req, res, next) => {
	const id = req.params.id;
	if (!isIdOf('webhookEndpoint', id) || !(await findEndpoint(ownedBy(callerOf(res)), id))) throw problems.notFound('webhook endpoint');
	next();
};

/** GET /api/v1/webhook_endpoints/{id}/deliveries: the usual envelope and paging, newest first, `status` to filter. */
export const listDeliveries = listEndpoint<DeliveryRow, { status: string }>({
	table: DELIVERIES,
	filters: { status: Joi.string().valid(...DELIVERY_STATUSES).description('Only deliveries in this status.') },
	where: (where, { status }, _organizationId, params) => {
		where.equals('endpoint_id', params.id);
		where.equals('status', status);
	},
	serialize: (row, caller) => serializeDelivery(row, caller.apiKey.scopeList),
});
