import { timestamp } from '../../common/json-schema';
import { EXCHANGE_BODY_BYTES } from '../exchange';

// What serializeAttempt (./serialize.ts) returns: the OpenAPI document's WebhookDeliveryAttempt, one send
// of a delivery (SPEC §22).
export const webhookDeliveryAttemptSchema = {
	type: 'object',
	description: 'One send of a delivery: when, how long, what was sent and what came back.',
	additionalProperties: false,
	required: ['attempt', 'started_at', 'duration_ms', 'status_code', 'error', 'request', 'response'],
	properties: {
		attempt: { type: 'integer', minimum: 0, description: "The delivery's attempt count at this send (a resend of a finished delivery counts from 1 again)." },
		started_at: timestamp,
		duration_ms: { type: 'integer', minimum: 0 },
		status_code: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when it gave none." },
		error: { type: ['string', 'null'], description: 'Why it failed; null for a 2xx.' },
		request: {
			type: ['object', 'null'],
			description: 'The headers sent (the body is the event, on the delivery); null when nothing was sent (the URL was refused).',
			additionalProperties: false,
			required: ['headers'],
			properties: { headers: { type: 'object', additionalProperties: { type: 'string' } } },
		},
		response: {
			type: ['object', 'null'],
			description: `The answer; null when none came. \`body\`: its first ${EXCHANGE_BODY_BYTES} bytes, for a public destination only (else null).`,
			additionalProperties: false,
			required: ['status', 'size', 'body'],
			properties: { status: { type: 'integer' }, size: { type: ['integer', 'null'] }, body: { type: ['string', 'null'] } },
		},
	},
};

// What listAttempts (./list.ts) answers.
export const webhookDeliveryAttemptListSchema = {
	type: 'object',
	description: "A delivery's attempts, oldest first (the newest 100).",
	additionalProperties: false,
	required: ['data'],
	properties: { data: { type: 'array', items: { $ref: '#/components/schemas/WebhookDeliveryAttempt' } } },
};
