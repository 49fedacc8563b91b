import { ID_PATTERNS } from '../../common/id-shapes';
import { EVENT_ID } from '../../events/feed';

// What receiveWebhookEvent (./create.ts) answers: the OpenAPI document's WebhookReceipt.
export const webhookReceiptSchema = {
	type: 'object',
	description: 'A receipt of one event by one endpoint.',
	additionalProperties: false,
	required: ['endpoint_id', 'event_id', 'received_at', 'first'],
	properties: {
		endpoint_id: { type: 'string', pattern: ID_PATTERNS.webhookEndpoint.source },
		event_id: { type: 'string', pattern: EVENT_ID.source },
		received_at: { type: 'string', format: 'date-time', description: 'When the event was first received (or delivered).' },
		first: { type: 'boolean', description: 'true for the one call that received the event first; false for every later call.' },
	},
};
