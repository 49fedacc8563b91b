import type { RequestHandler } from 'express';

import { isIdOf } from '../../common/id-shapes';
import { problems } from '../../common/problem';
import { callerOf } from '../../http/auth';
import { serializeAttempt } from './serialize';
import { findDelivery } from '../deliveries/find';
import { ownedBy } from '../service';

/**
 * GET /api/v1/webhook_endpoints/{id}/deliveries/{delivery_id}/attempts: every attempt kept of one
 * delivery of the calling key's endpoint (SPEC §22), oldest first: when, how long, the status or
 * the error, the headers sent, and the answer (status, size, and its first 4 KB for a public
 * destination only). `{ "data": [...] }`; 404 as for the endpoint.
 */
export const listAttempts: RequestHandler = async (req, res) => {
	const { id, delivery_id: deliveryId } = req.params;
	const found = isIdOf('webhookEndpoint', id) && isIdOf('webhookDelivery', deliveryId) ? await findDelivery(ownedBy(callerOf(res)), id, deliveryId) : undefined;
	if (!found) throw problems.notFound('delivery of this webhook endpoint');
	res.json({ data: found.attempts.map(serializeAttempt) });
};
