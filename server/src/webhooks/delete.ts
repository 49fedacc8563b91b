import type { RequestHandler } from 'express';

import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { callerOf } from '../http/auth';
import { deleteEndpoint } from './service';

/** DELETE /api/v1/webhook_endpoints/{id}: 204, and nothing more is sent to it. */
export const deleteWebhookEndpoint: RequestHandler = async (req, res) => {
	const id = req.params.id;
	if (!isIdOf('webhookEndpoint', id) || !(await deleteEndpoint(callerOf(res).organization.id, id))) {
		throw problems.notFound('webhook endpoint');
	}
	res.status(204).end();
};
