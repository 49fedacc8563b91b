import Joi from 'joi';

import { plainText } from '../common/text';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from './event-types';

export interface EndpointInput {
	url: string;
	events: string[];
	description?: string;
}

/** A new endpoint's fields, one rule for every door (the API's body, Settings → Webhooks' form). */
export const endpointInput = Joi.object<EndpointInput>({
	url: plainText().max(2048).required(),
	events: Joi.array()
		.items(Joi.string().valid(ALL_EVENTS, ...WEBHOOK_EVENT_TYPES))
		.min(1)
		.required()
		.messages({ 'array.min': 'events must list at least one event type, or "*"', 'array.base': 'events must be an array of event types' }),
	description: plainText().max(500).allow(''),
})
	.required()
	.unknown(false);

/** An edit (PATCH): any of the same fields, at least one; the id and the secret stay (SPEC §22). */
export const endpointChange = endpointInput
	.fork(['url', 'events'], (field) => field.optional())
	.min(1)
	.messages({ 'object.min': 'Send at least one of url, events, description.' });
