import type { RequestHandler } from 'express';

import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { callerOf } from '../http/auth';
import { serializeEndpoint } from './serialize';
import { findEndpoint, ownedBy } from './service';

/** GET /api/v1/webhook_endpoints/{id}: one of the calling key's endpoints; any other id answers the same 404. */
export const getWebhookEndpoint: RequestHandler = async (req, res) => {
	const id = req.params.id;
	const endpoint = isIdOf('webhookEndpoint', id) ? await findEndpoint(ownedBy(callerOf(res)), id) : null;
	if (!endpoint) throw problems.notFound('webhook endpoint');
	res.json(serializeEndpoint(endpoint));
};
