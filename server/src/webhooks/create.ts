import type { RequestHandler } from 'express';
import Joi from 'joi';

import type { AppDeps } from '../http/deps';
import { callerOf } from '../http/auth';
import { jsonBody } from '../http/json-body';
import { parseBody } from '../http/validate';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from './event-types';
import { serializeEndpoint } from './serialize';
import { createEndpoint } from './service';

// eslint-disable-next-line no-control-regex
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

const bodySchema = Joi.object<{ url: string; events: string[]; description?: string }>({
	url: Joi.string().max(2048).pattern(NO_CONTROL_CHARACTERS, 'text without control characters').required(),
	events: Joi.array()
		.items(Joi.string().valid(ALL_EVENTS, ...WEBHOOK_EVENT_TYPES))
		.min(1)
		.required()
		.messages({ 'array.min': 'events must list at least one event type, or "*"', 'array.base': 'events must be an array of event types' }),
	description: Joi.string().max(500).pattern(NO_CONTROL_CHARACTERS, 'text without control characters').allow(''),
})
	.required()
	.unknown(false);

/** POST /api/v1/webhook_endpoints: the one answer that carries the secret. */
export function createWebhookEndpoint({ config }: Pick<AppDeps, 'config'>): RequestHandler[] {
	const handler: RequestHandler = async (req, res) => {
		const body = parseBody(bodySchema, req.body);
		// A refused URL or a full organization is a RuleError: http/rule-problems.ts answers it.
		const { endpoint, secret } = await createEndpoint({
			organizationId: callerOf(res).organization.id,
			url: body.url,
			events: body.events,
			description: body.description || null,
			allowPrivate: config.webhooks.allowPrivate,
		});
		res.status(201).location(`/api/v1/webhook_endpoints/${endpoint.id}`).json({ ...serializeEndpoint(endpoint), secret });
	};
	return [...jsonBody, handler];
}
