import type { RequestHandler } from 'express';

import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { asCaller, callerOf, originOf } from '../http/auth';
import { deleteEndpoint } from './service';

/** DELETE /api/v1/webhook_endpoints/{id}: 204, and nothing more is sent to it (audited as the calling key). */
export const deleteWebhookEndpoint: RequestHandler = async (req, res) => {
	const id = req.params.id;
	const caller = callerOf(res);
	const deleted = isIdOf('webhookEndpoint', id) && (await deleteEndpoint({ id, origin: originOf(req), ...asCaller(caller), ownerKeyId: caller.apiKey.id }));
	if (!deleted) throw problems.notFound('webhook endpoint');
	res.status(204).end();
};
