import { ID_PATTERNS } from '../common/id-shapes';
import { timestamp } from '../common/json-schema';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from './event-types';

const endpointProperties = {
	id: { type: 'string', pattern: ID_PATTERNS.webhookEndpoint.source, examples: ['whe_3Kp9Xq2LmZ8cRt4V'] },
	url: { type: 'string', format: 'uri', description: 'Where events are posted (http or https, a public address).' },
	events: {
		type: 'array',
		minItems: 1,
		items: { type: 'string', enum: [ALL_EVENTS, ...WEBHOOK_EVENT_TYPES] },
		description: "The event types it subscribes to, or `[\"*\"]`: every type its key's scopes can read. What is sent is further bounded by the key's scopes at send time.",
	},
	description: { type: ['string', 'null'] },
	status: {
		type: 'string',
		enum: ['enabled', 'disabled'],
		description: '`disabled` after 3 days of failed deliveries in a row, or when the API key that created it (or replaced that key by rotation) is revoked.',
	},
	created_at: timestamp,
};

// What serializeEndpoint (./serialize.ts) returns: the OpenAPI document's WebhookEndpoint.
export const webhookEndpointSchema = {
	type: 'object',
	description: 'Where the LMS posts events, signed with the endpoint\'s secret (LMS-Signature).',
	additionalProperties: false,
	required: Object.keys(endpointProperties),
	properties: endpointProperties,
};

// What createWebhookEndpoint (./create.ts) answers: serializeEndpoint and the secret, which a replay
// under the same Idempotency-Key leaves out (hence outside `required`).
export const newWebhookEndpointSchema = {
	type: 'object',
	description: 'A new endpoint: the only answer that carries its signing secret.',
	additionalProperties: false,
	required: Object.keys(endpointProperties),
	properties: {
		...endpointProperties,
		secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9]{32}$', description: 'Shown once: a replay under the same Idempotency-Key omits it. Verify `LMS-Signature` with it.' },
	},
};

// What rotateWebhookSecret (./rotate.ts) answers: serializeEndpoint, the new secret (not in a replay) and
// until when the old one signs.
export const rotatedWebhookEndpointSchema = {
	type: 'object',
	description: 'The endpoint after a rotation: the new secret (this answer only) and until when the old one still signs.',
	additionalProperties: false,
	required: [...Object.keys(endpointProperties), 'previous_secret_expires_at'],
	properties: {
		...endpointProperties,
		secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9]{32}$', description: 'The new secret. Shown once: a replay under the same Idempotency-Key omits it.' },
		previous_secret_expires_at: { ...timestamp, description: 'Until then (24 h) every delivery carries two `v1=` in LMS-Signature: one by the new secret, one by the old.' },
	},
};
