import { ID_PATTERNS } from '../../common/id-shapes';
import { nullableTimestamp, timestamp } from '../../common/json-schema';
import { WEBHOOK_EVENT_TYPES } from '../event-types';
import { EXCHANGE_BODY_BYTES, TRUNCATED_MARKER } from '../exchange';
import { DELIVERY_STATUSES } from '../model';

// What serializeDelivery (./serialize.ts) returns: the OpenAPI document's WebhookDelivery (SPEC §19):
// one event owed to one endpoint, and where its attempts stand.
export const webhookDeliverySchema = {
	type: 'object',
	description: 'One event owed to one endpoint, and where its attempts stand.',
	additionalProperties: false,
	required: [
		'id',
		'endpoint_id',
		'event_id',
		'event_type',
		'status',
		'attempts',
		'last_status_code',
		'last_error',
		'last_attempt_at',
		'next_attempt_at',
		'delivered_at',
		'created_at',
		'last_request',
		'last_response',
	],
	properties: {
		id: { type: 'string', pattern: ID_PATTERNS.webhookDelivery.source, examples: ['whd_7Qm2Lx9RtV4cKp3Z'] },
		endpoint_id: { type: 'string', pattern: ID_PATTERNS.webhookEndpoint.source },
		event_id: { type: 'string', pattern: '^evt_[0-9a-f]{28}$', description: 'The `LMS-Event-Id` of the delivery.' },
		event_type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES, 'webhook.test'] },
		status: {
			type: 'string',
			enum: [...DELIVERY_STATUSES],
			description: '`pending`: owed (queued, in flight or waiting for its next attempt); `delivered`: a 2xx, or a receipt; `failed`: its attempts ran out, or nothing could be sent (endpoint disabled or deleted, key revoked).',
		},
		attempts: { type: 'integer', minimum: 0, description: 'Attempts made (counted from 0 again by a retry).' },
		last_status_code: { type: ['integer', 'null'], description: "The receiver's HTTP status at the last attempt; null when it gave none (refused, timed out)." },
		last_error: { type: ['string', 'null'], description: 'Why the last attempt failed, in a few words.' },
		last_attempt_at: nullableTimestamp,
		next_attempt_at: { ...nullableTimestamp, description: 'When it is next tried, while pending; null once finished.' },
		delivered_at: nullableTimestamp,
		created_at: timestamp,
		last_request: {
			type: ['object', 'null'],
			description: `What the last attempt sent; null when nothing was sent. The body is cut at ${EXCHANGE_BODY_BYTES} bytes, ending with "${TRUNCATED_MARKER} <size> bytes in all]"; null for a key that may not read the event's type.`,
			additionalProperties: false,
			required: ['headers', 'body'],
			properties: {
				headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'Content-Type, User-Agent, LMS-Event-Id, LMS-Event-Type, LMS-Signature.' },
				body: { type: ['string', 'null'] },
			},
		},
		last_response: {
			type: ['object', 'null'],
			description: `The receiver's answer to the last attempt; null when none came (refused, timed out). The body is cut at ${EXCHANGE_BODY_BYTES} bytes like the request's; null for a destination that is not public (private, loopback, allow-listed: only the status is kept).`,
			additionalProperties: false,
			required: ['status', 'body'],
			properties: { status: { type: 'integer' }, body: { type: ['string', 'null'] } },
		},
	},
};
