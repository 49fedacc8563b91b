import { ID_PATTERNS } from '../common/id-shapes';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from '../webhooks/event-types';
import { EXCHANGE_BODY_BYTES, TRUNCATED_MARKER } from '../webhooks/exchange';
import { MAX_ENDPOINTS } from '../webhooks/service';

/** The webhook endpoint schemas (SPEC §12), checked against real answers like the others. */

const timestamp = { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' };
const eventTypes = { type: 'array', minItems: 1, items: { type: 'string', enum: [ALL_EVENTS, ...WEBHOOK_EVENT_TYPES] } };

const endpointProperties = {
	id: { type: 'string', pattern: ID_PATTERNS.webhookEndpoint.source, examples: ['whe_3Kp9Xq2LmZ8cRt4V'] },
	url: { type: 'string', format: 'uri', description: 'Where events are posted (http or https, a public address).' },
	events: {
		...eventTypes,
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

export const WebhookEndpoint = {
	type: 'object',
	description: 'Where the LMS posts events, signed with the endpoint\'s secret (LMS-Signature).',
	additionalProperties: false,
	required: Object.keys(endpointProperties),
	properties: endpointProperties,
};

export const NewWebhookEndpoint = {
	type: 'object',
	description: 'A new endpoint: the only answer that carries its signing secret.',
	additionalProperties: false,
	required: [...Object.keys(endpointProperties), 'secret'],
	properties: { ...endpointProperties, secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9]{32}$', description: 'Shown once. Verify `LMS-Signature` with it.' } },
};

export const createDescription =
	`Subscribes a URL to events. The answer carries the signing secret (\`whsec_…\`), shown this once. At most ${MAX_ENDPOINTS} endpoints per organization. ` +
	'The URL must be http or https and every address its host resolves to public: IPv4 unicast or IPv6 2000::/3, outside IANA\'s special-purpose registries ' +
	'(a private or loopback destination only if the server names it in WEBHOOK_ALLOWED_HOSTS, or sets WEBHOOK_ALLOW_PRIVATE=true); otherwise 422 invalid_webhook_url, ' +
	'"not a public address", never saying what the name resolved to. The URL is stored and returned as parsed (`new URL(url).href`). Needs `manage:webhooks`, and the scopes that read each named type through the feed ' +
	'(`read:users` for `user.*`, `read:enrollments` for `enrollment.*` and `certificate.*`): a type the key cannot read answers 403 `insufficient_scope`, ' +
	'and `*` means every type the key can read (403 if none). The endpoint belongs to the calling key: it receives only what that key\'s scopes read at send time, ' +
	'is disabled when the key is revoked and passes to the new key when it is rotated. Creation and deletion are in the keys page\'s audit log.';

const nullableTimestamp = { ...timestamp, type: ['string', 'null'] };

/** One event owed to one endpoint (SPEC §19): where its attempts stand. */
export const WebhookDelivery = {
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
			enum: ['pending', 'delivered', 'failed'],
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

export const RotatedWebhookEndpoint = {
	type: 'object',
	description: 'The endpoint after a rotation: the new secret (this answer only) and until when the old one still signs.',
	additionalProperties: false,
	required: [...Object.keys(endpointProperties), 'secret', 'previous_secret_expires_at'],
	properties: {
		...endpointProperties,
		secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9]{32}$', description: 'The new secret. Shown once: a replay under the same Idempotency-Key omits it.' },
		previous_secret_expires_at: { ...timestamp, description: 'Until then (24 h) every delivery carries two `v1=` in LMS-Signature: one by the new secret, one by the old.' },
	},
};

/** One send of a delivery (SPEC §22). */
const WebhookDeliveryAttempt = {
	type: 'object',
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

export const WebhookDeliveryAttemptList = {
	type: 'object',
	additionalProperties: false,
	required: ['data'],
	properties: { data: { type: 'array', items: WebhookDeliveryAttempt } },
};
