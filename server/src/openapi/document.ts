import type Joi from 'joi';

import { SCOPES, type Scope } from '../api-keys/model';
import { listCertificates } from '../certificates/list';
import { ID_PATTERNS } from '../common/id-shapes';
import { listCourses } from '../courses/list';
import { createEnrollmentBody, enrollmentBatchOptions } from '../enrollments/create';
import { listEnrollments } from '../enrollments/list';
import { updateEnrollmentBody } from '../enrollments/update';
import { eventQuery } from '../events/list';
import { PAGING, type ListHandler } from '../http/list';
import { reportQuery } from '../reports/get-course-completion';
import { createUserBody } from '../users/create';
import { listUsers } from '../users/list';
import { updateUserBody } from '../users/update';
import { listDeliveries } from '../webhooks/deliveries/list';
import { emptyBody } from '../webhooks/deliveries/empty-body';
import { endpointChange, endpointInput } from '../webhooks/endpoint-input';
import { listWebhookEndpoints } from '../webhooks/list';
import { receiptBody } from '../webhooks/receipts/create';
import { queryParameter, queryParameters, requestBody, schemaOf } from './from-joi';
import { groupPaths } from './groups';
import { componentSchemas } from './components';
import * as webhooks from './webhooks';
import { batchBody, batchDescription, batchResult, withIdempotency } from './writes';

/**
 * The OpenAPI 3.1 description served at /api/v1/openapi.json. Query parameters and request
 * bodies are made from the Joi schemas the handlers validate with (from-joi.ts); every answer is a
 * schema that sits next to the serializer that makes it (components.ts gathers them;
 * test/server/serializer-schemas.test.ts checks the real output against each).
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const requestIdHeader = {
	'X-Request-Id': { description: 'Echo of a sane incoming X-Request-Id, else a generated one.', required: true, schema: { type: 'string' } },
};
const rateLimitHeaders = {
	RateLimit: { description: 'IETF draft-8: remaining requests (`r`) and seconds to reset (`t`).', schema: { type: 'string' } },
	'RateLimit-Policy': { description: 'IETF draft-8: quota (`q`) per window (`w`, seconds).', schema: { type: 'string' } },
	'X-RateLimit-Limit': { schema: { type: 'integer' } },
	'X-RateLimit-Remaining': { schema: { type: 'integer' } },
	'X-RateLimit-Reset': { description: 'Unix time (seconds) when the window resets.', schema: { type: 'integer' } },
};
const bearerChallenge = (required: boolean) => ({
	'WWW-Authenticate': { description: 'RFC 6750 Bearer challenge.', required, schema: { type: 'string' } },
});

function problem(description: string, status: number, codes: string[], headers: Record<string, object> = {}) {
	return {
		description,
		headers: { ...requestIdHeader, ...headers },
		content: {
			'application/problem+json': {
				schema: {
					allOf: [ref('Problem')],
					properties: { status: { const: status }, code: { enum: codes } },
				},
			},
		},
	};
}

const responses = {
	InvalidRequest: problem('A query parameter or body field is wrong; `errors` names each one.', 400, ['invalid_request']),
	Unauthorized: problem('No key, or the key is not usable.', 401, ['missing_api_key', 'invalid_api_key', 'api_key_revoked', 'api_key_rotated', 'api_key_expired'], bearerChallenge(true)),
	Forbidden: problem('The organization is not on Enterprise, or the key lacks the scope.', 403, ['plan_required', 'insufficient_scope'], {
		...bearerChallenge(false),
		'X-OAuth-Scopes': { description: 'The scopes the key holds.', schema: { type: 'string' } },
		'X-Accepted-OAuth-Scopes': { description: 'The scope this operation needs.', schema: { type: 'string' } },
	}),
	NotFound: problem('No such record in your organization (or no such path).', 404, ['not_found']),
	MethodNotAllowed: problem('The path exists but not with this method.', 405, ['method_not_allowed'], {
		Allow: { description: 'The methods this path accepts.', required: true, schema: { type: 'string' } },
	}),
	TooManyRequests: problem('The per-IP limit is exceeded.', 429, ['rate_limited'], {
		'Retry-After': { description: 'Seconds to wait.', required: true, schema: { type: 'integer' } },
		...rateLimitHeaders,
	}),
	InternalError: problem('Something unexpected failed; report the request_id.', 500, ['internal_error']),
	Unavailable: problem('The limiter cannot reach its shared store; retry shortly.', 503, ['rate_limit_unavailable'], {
		'Retry-After': { description: 'Seconds to wait.', required: true, schema: { type: 'integer' } },
	}),
};

const commonErrors = {
	'401': { $ref: '#/components/responses/Unauthorized' },
	'403': { $ref: '#/components/responses/Forbidden' },
	'405': { $ref: '#/components/responses/MethodNotAllowed' },
	'429': { $ref: '#/components/responses/TooManyRequests' },
	'500': { $ref: '#/components/responses/InternalError' },
	'503': { $ref: '#/components/responses/Unavailable' },
};

function ok(description: string, schema: object, extraHeaders: Record<string, object> = {}) {
	return { description, headers: { ...requestIdHeader, ...rateLimitHeaders, ...extraHeaders }, content: { 'application/json': { schema } } };
}

/**
 * Scopes are a property of the key, not of the bearer scheme: OpenAPI lists scopes in a security
 * requirement only for OAuth 2 and OpenID Connect, so the requirement is the bare key and the scope
 * an operation needs is `x-required-scope` (and its description's last sentence).
 */
function security(scope: Scope) {
	return { security: [{ bearerAuth: [] }], 'x-required-scope': scope };
}

function listOperation(operationId: string, summary: string, item: string, scope: Scope, list: ListHandler) {
	return {
		get: {
			operationId,
			summary,
			description: `${summary}. Ordered by created_at, then id. Unknown or repeated query parameters answer 400. Needs \`${scope}\`.`,
			tags: [item],
			...security(scope),
			parameters: queryParameters(list.query, PAGING),
			responses: {
				'200': ok(`A page of ${item} records.`, ref(`${item}List`), {
					Link: { description: 'RFC 8288 links: first, prev, next, last (those that exist), absolute.', required: true, schema: { type: 'string' } },
				}),
				'400': { $ref: '#/components/responses/InvalidRequest' },
				...commonErrors,
			},
		},
	};
}

/** The `{id}` of a path: the record's id, in its own shape (anything else answers 404). */
function idParameter(item: string, pattern: RegExp) {
	return [
		{
			name: 'id',
			in: 'path',
			required: true,
			description: `The ${item}'s id.`,
			schema: { type: 'string', pattern: pattern.source },
		},
	];
}

function getOperation(operationId: string, summary: string, item: string, scope: Scope, idPattern: RegExp) {
	return {
		get: {
			operationId,
			summary,
			description: `${summary}. Another organization's id answers 404. Needs \`${scope}\`.`,
			tags: [item],
			...security(scope),
			parameters: idParameter(item.toLowerCase(), idPattern),
			responses: {
				'200': ok(`The ${item}.`, ref(item)),
				'404': { $ref: '#/components/responses/NotFound' },
				...commonErrors,
			},
		},
	};
}

/** POST …/batch: up to 100 bodies of the single POST (`single`), each answered as that POST would be. */
function batchOperation(operationId: string, summary: string, item: string, scope: Scope, single: Joi.ObjectSchema, options?: { schema: Joi.ObjectSchema; answers: string }) {
	return {
		operationId,
		summary,
		description: `${batchDescription} Needs \`${scope}\`.`,
		tags: [item],
		...security(scope),
		requestBody: requestBody(single, batchBody(schemaOf(single), options && schemaOf(options.schema))),
		responses: {
			'200': ok(
				`Each item's answer, in order: 201 with the new ${item.toLowerCase()}, or the problem its own POST would answer${options ? `; ${options.answers}` : ''}.`,
				batchResult(ref(item), ref('Problem')),
			),
			'400': problem('Malformed JSON; no `items`, more than 100, an item that is not a JSON object, or an unknown field (one `errors` entry each). Nothing was run.', 400, [
				'invalid_request',
				'malformed_json',
			]),
			'413': problem('The body is over 1 MiB.', 413, ['payload_too_large']),
			'415': problem('The body is not `application/json`.', 415, ['unsupported_media_type']),
			...commonErrors,
		},
	};
}

const courseCompletionReport = {
	get: {
		operationId: 'getCourseCompletionReport',
		summary: 'Course completion report',
		description:
			'One row per published course (in course order): enrollments by status, overdue ones, the completion rate and the certificates valid, expiring within 30 days and expired. ' +
			'`Accept: text/csv` gives the same as CSV (a header line, then one line per course; the certificate counts as certificates_valid, certificates_expiring_30d, certificates_expired). ' +
			'Answered from counters and indexes, so its time does not grow with the number of enrollments. Unknown or repeated query parameters answer 400. Needs `read:enrollments`.',
		tags: ['Report'],
		...security('read:enrollments'),
		parameters: queryParameters(reportQuery),
		responses: {
			'200': {
				...ok('The report.', ref('CourseCompletionReport')),
				content: {
					'application/json': { schema: ref('CourseCompletionReport') },
					'text/csv': {
						schema: {
							type: 'string',
							description:
								'RFC 4180, CRLF line ends. Columns: course_id, title, enrolled, active, completed, withdrawn, expired, overdue, completion_rate, certificates_valid, certificates_expiring_30d, certificates_expired. A title starting with =, +, -, @ is prefixed with \' (no spreadsheet runs it).',
						},
					},
				},
			},
			'400': { $ref: '#/components/responses/InvalidRequest' },
			...commonErrors,
		},
	},
};

const webhookEndpointId = idParameter('webhook endpoint', ID_PATTERNS.webhookEndpoint);

const webhookEndpoints = {
	...listOperation('listWebhookEndpoints', 'List webhook endpoints', 'WebhookEndpoint', 'manage:webhooks', listWebhookEndpoints),
	post: {
		operationId: 'createWebhookEndpoint',
		summary: 'Create a webhook endpoint',
		description: webhooks.createDescription,
		tags: ['WebhookEndpoint'],
		...security('manage:webhooks'),
		requestBody: requestBody(endpointInput),
		responses: {
			'201': ok('The new endpoint, with its secret (this once).', ref('NewWebhookEndpoint'), {
				Location: { description: '/api/v1/webhook_endpoints/{id}', required: true, schema: { type: 'string' } },
			}),
			'400': problem('Malformed JSON, or a missing, mistyped or unknown field, or an unknown event type.', 400, ['invalid_request', 'malformed_json']),
			'413': problem('The body is over 16 KiB.', 413, ['payload_too_large']),
			'415': problem('The body is not `application/json`.', 415, ['unsupported_media_type']),
			'422': problem('The URL is refused, or the organization already has 20 endpoints.', 422, ['invalid_webhook_url', 'too_many_endpoints']),
			...commonErrors,
		},
	},
};

/**
 * An operation on one webhook endpoint or its deliveries: `manage:webhooks`, the endpoint's id
 * (unless `parameters` says more), 404 for an endpoint another key owns or none, and the errors
 * every operation has.
 */
function endpointOperation(operation: { operationId: string; summary: string; description: string; parameters?: object[]; requestBody?: object; responses: Record<string, object> }) {
	return {
		...operation,
		tags: ['WebhookEndpoint'],
		...security('manage:webhooks'),
		parameters: operation.parameters ?? webhookEndpointId,
		responses: { ...operation.responses, '404': { $ref: '#/components/responses/NotFound' }, ...commonErrors },
	};
}

/** The 400 of an action that takes no body (a bodiless POST is read as `{}`). */
const TAKES_NO_BODY = problem('Malformed JSON, or a field (this takes none).', 400, ['invalid_request', 'malformed_json']);

const webhookEndpoint = {
	...getOperation('getWebhookEndpoint', 'Retrieve a webhook endpoint', 'WebhookEndpoint', 'manage:webhooks', ID_PATTERNS.webhookEndpoint),
	patch: endpointOperation({
		operationId: 'updateWebhookEndpoint',
		summary: 'Edit a webhook endpoint',
		description:
			'Changes any of `url`, `events`, `description` (at least one), keeping the id, the secret and the deliveries. The URL policy and the scope rule apply as at creation ' +
			'(422 `invalid_webhook_url`, 403 `insufficient_scope`); a refused edit changes nothing. A key reaches only the endpoints it owns. Audited as webhook.updated. Needs `manage:webhooks`.',
		requestBody: requestBody(endpointChange),
		responses: {
			'200': ok('The endpoint, edited.', ref('WebhookEndpoint')),
			'400': problem('Malformed JSON, an unknown type or field, or no field.', 400, ['invalid_request', 'malformed_json']),
			'422': problem('The URL is refused.', 422, ['invalid_webhook_url']),
		},
	}),
	delete: endpointOperation({
		operationId: 'deleteWebhookEndpoint',
		summary: 'Delete a webhook endpoint',
		description: 'Nothing more is sent to it, pending retries included. Needs `manage:webhooks`.',
		responses: {
			'204': { description: 'Deleted.', headers: { ...requestIdHeader } },
		},
	}),
};


const webhookReceipts = {
	post: endpointOperation({
		operationId: 'receiveWebhookEvent',
		summary: 'Record that a delivered event was received',
		description:
			'A receiver calls this with the `LMS-Event-Id` of a delivery before acting on it, to act on each event once: exactly one call per endpoint and event answers 201 with `first: true` (and the delivery counts as delivered: no more retries, even if the 2xx of its attempt was lost); every later call answers 200 with `first: false`, whatever the concurrency. An event not delivered to this endpoint answers 404. Needs `manage:webhooks`.',
		requestBody: requestBody(receiptBody),
		responses: {
			'201': ok('The first receipt of this event for this endpoint.', ref('WebhookReceipt')),
			'200': ok('The event was already received: act on it no more.', ref('WebhookReceipt')),
			'400': problem('Malformed JSON, or a missing, mistyped or unknown field.', 400, ['invalid_request', 'malformed_json']),
		},
	}),
};

const deliveryId = {
	name: 'delivery_id',
	in: 'path',
	required: true,
	description: "The delivery's id.",
	schema: { type: 'string', pattern: ID_PATTERNS.webhookDelivery.source },
};

const emptyRequest = requestBody(emptyBody);

const webhookDeliveries = {
	get: endpointOperation({
		operationId: 'listWebhookDeliveries',
		summary: "List a webhook endpoint's deliveries",
		description:
			"The endpoint's deliveries, newest first (created_at, then id, descending): status, attempts, the receiver's last HTTP status, the next attempt. `status`, `event_type`, `created_after` and `created_before` filter. Kept until the event retention removes them. Unknown or repeated query parameters answer 400. Needs `manage:webhooks`.",
		parameters: [...webhookEndpointId, ...queryParameters(listDeliveries.query, PAGING)],
		responses: {
			'200': ok('A page of deliveries, newest first.', ref('WebhookDeliveryList'), {
				Link: { description: 'RFC 8288 links: first, prev, next, last (those that exist), absolute.', required: true, schema: { type: 'string' } },
			}),
			'400': { $ref: '#/components/responses/InvalidRequest' },
		},
	}),
};

const webhookDeliveryAttempts = {
	get: endpointOperation({
		operationId: 'listWebhookDeliveryAttempts',
		summary: "List a delivery's attempts",
		description:
			'Every attempt kept of one delivery, oldest first (the newest 100): when it started, how long it took, the HTTP status or the error, the headers sent, and the answer: ' +
			'its status, size and, for a public destination only, its first 4 KB (null for private, loopback or allow-listed destinations). Needs `manage:webhooks`.',
		parameters: [...webhookEndpointId, deliveryId],
		responses: {
			'200': ok("The delivery's attempts.", ref('WebhookDeliveryAttemptList')),
		},
	}),
};

const webhookDeliveryRetry = {
	post: endpointOperation({
		operationId: 'retryWebhookDelivery',
		summary: 'Send a delivery again now',
		description:
			'Sends the delivery again now, whatever its state, and answers it (`pending`). A finished one (failed, or delivered: a resend) gets a fresh schedule of attempts; ' +
			'a pending one waiting for a retry is made due now and, if this send fails, its schedule continues; one being sent at this moment is left to that send. ' +
			'Never sent twice at once, however many retries arrive together. ' +
			'A disabled endpoint answers 409 `endpoint_disabled`. Needs `manage:webhooks`.',
		parameters: [...webhookEndpointId, deliveryId],
		requestBody: emptyRequest,
		responses: {
			'200': ok('The delivery, queued.', ref('WebhookDelivery')),
			'400': TAKES_NO_BODY,
			'409': problem('The endpoint is disabled.', 409, ['endpoint_disabled']),
		},
	}),
};

const webhookTest = {
	post: endpointOperation({
		operationId: 'sendWebhookTestEvent',
		summary: 'Send a test event to a webhook endpoint',
		description:
			'Queues a `webhook.test` event for this endpoint only, whatever it subscribes to: signed, retried and listed like any delivery, never in the event feed or sent to another endpoint. ' +
			'Its body has the shape of every event, `data.object` naming the endpoint. Answers the delivery (`pending`); follow it in …/deliveries. A disabled endpoint answers 409 `endpoint_disabled`. Needs `manage:webhooks`.',
		requestBody: emptyRequest,
		responses: {
			'201': ok('The test delivery, queued.', ref('WebhookDelivery'), {
				Location: { description: '/api/v1/webhook_endpoints/{id}/deliveries', required: true, schema: { type: 'string' } },
			}),
			'400': TAKES_NO_BODY,
			'409': problem('The endpoint is disabled.', 409, ['endpoint_disabled']),
		},
	}),
};

const webhookRotateSecret = {
	post: endpointOperation({
		operationId: 'rotateWebhookSecret',
		summary: "Rotate a webhook endpoint's signing secret",
		description:
			'Gives the endpoint a new signing secret, shown in this answer only. For 24 hours the old secret keeps signing beside it: LMS-Signature then carries two `v1=`, one per secret, so a receiver verifies with either while it switches. ' +
			'The old secret is never shown again; both are stored sealed. Audited as webhook.rotated. Needs `manage:webhooks`.',
		requestBody: emptyRequest,
		responses: {
			'200': ok('The endpoint with its new secret.', ref('RotatedWebhookEndpoint')),
			'400': TAKES_NO_BODY,
		},
	}),
};


const createEnrollment = {
	operationId: 'createEnrollment',
	summary: 'Enroll a student in a course',
	description:
		'Creates an active enrollment with progress 0, and optionally a deadline (`due_at`). Concurrent identical requests create one enrollment; the others answer 409. Needs `write:enrollments`.',
	tags: ['Enrollment'],
	...security('write:enrollments'),
	requestBody: requestBody(createEnrollmentBody),
	responses: {
		'201': ok('The new enrollment.', ref('Enrollment'), {
			Location: { description: '/api/v1/enrollments/{id}', required: true, schema: { type: 'string' } },
		}),
		'400': problem('Malformed JSON, or a missing, empty, mistyped or unknown field (one `errors` entry each).', 400, ['invalid_request', 'malformed_json']),
		'409': problem('The student is already enrolled; `enrollment_id` is the existing enrollment.', 409, ['already_enrolled']),
		'413': problem('The body is over 16 KiB.', 413, ['payload_too_large']),
		'415': problem('The body is not `application/json`.', 415, ['unsupported_media_type']),
		'422': problem('The student or the course cannot take this enrollment.', 422, [
			'student_not_found',
			'not_a_student',
			'user_deactivated',
			'course_not_found',
			'course_not_published',
		]),
		...commonErrors,
	},
};

const updateEnrollment = {
	operationId: 'updateEnrollment',
	summary: 'Progress, complete, withdraw or reactivate an enrollment',
	description:
		'Transitions: active → active (progress 0–99), active → completed (`status: completed` or progress 100; issues the certificate), ' +
		'active → withdrawn, withdrawn or expired → active (not while the student is deactivated). A completed enrollment is final. A request that changes nothing answers 200 ' +
		'and emits no event, so it is safe to retry. Concurrent completions issue one certificate. `due_at` sets, moves (a future one arms enrollment.overdue again) or, with null, clears the deadline; ' +
		'a completed enrollment\'s deadline cannot change (409 due_date_on_completed). Needs `write:enrollments`.',
	tags: ['Enrollment'],
	...security('write:enrollments'),
	parameters: idParameter('enrollment', ID_PATTERNS.enrollment),
	requestBody: requestBody(updateEnrollmentBody),
	responses: {
		'200': ok('The enrollment after the change (or unchanged).', ref('Enrollment')),
		'400': problem('Malformed JSON, or a missing, mistyped, out-of-range or unknown field (one `errors` entry each).', 400, ['invalid_request', 'malformed_json']),
		'404': { $ref: '#/components/responses/NotFound' },
		'409': problem(
			'The enrollment cannot make this transition (`from` and `to` name the statuses), or its due_at cannot change because it is (or would be) completed.',
			409,
			['invalid_transition', 'due_date_on_completed'],
		),
		'422': problem('The student is deactivated: their enrollments cannot become active again until they are reactivated.', 422, ['user_deactivated']),
		'413': problem('The body is over 16 KiB.', 413, ['payload_too_large']),
		'415': problem('The body is not `application/json`.', 415, ['unsupported_media_type']),
		...commonErrors,
	},
};

const createUser = {
	operationId: 'createUser',
	summary: 'Create a user',
	description:
		'Creates an active student (or instructor). An e-mail or external id another user of the organization has answers 409 with that ' +
		'user’s `user_id`; concurrent identical requests create exactly one user. Emits `user.created`. Needs `write:users`.',
	tags: ['User'],
	...security('write:users'),
	requestBody: requestBody(createUserBody),
	responses: {
		'201': ok('The new user.', ref('User'), {
			Location: { description: '/api/v1/users/{id}', required: true, schema: { type: 'string' } },
		}),
		'400': problem('Malformed JSON, or a missing, empty, mistyped, malformed or unknown field (one `errors` entry each).', 400, ['invalid_request', 'malformed_json']),
		'409': problem(
			'The e-mail, the username it would be (another user’s SCIM userName), or the external id is taken in the organization; `user_id` names who has it.',
			409,
			['email_taken', 'username_taken', 'external_id_taken'],
		),
		'413': problem('The body is over 16 KiB.', 413, ['payload_too_large']),
		'415': problem('The body is not `application/json`.', 415, ['unsupported_media_type']),
		'422': problem('The role cannot be granted through the API.', 422, ['role_not_allowed']),
		...commonErrors,
	},
};

const updateUser = {
	operationId: 'updateUser',
	summary: 'Update, deactivate or reactivate a user',
	description:
		'Changes any of name, email, role, external_id (`null` clears it) and status. A change of fields emits `user.updated` with ' +
		'`data.previous_attributes` (the old values of what changed). `status: deactivated` is one-step offboarding, in one transaction: every ' +
		'active enrollment is withdrawn (each emits `enrollment.withdrawn`), the user can no longer sign in and their sessions end, new ' +
		'enrollments answer 422 `user_deactivated`; certificates stay. Emits `user.deactivated`. `status: active` reactivates (`user.reactivated`) ' +
		'and leaves withdrawn enrollments as they are. A request that changes nothing answers 200 and emits nothing. Admins and super admins ' +
		'cannot be changed through the API (403 `protected_user`). Needs `write:users`.',
	tags: ['User'],
	...security('write:users'),
	parameters: idParameter('user', ID_PATTERNS.user),
	requestBody: requestBody(updateUserBody),
	responses: {
		'200': ok('The user after the change (or unchanged).', ref('User')),
		'400': problem('Malformed JSON, or an empty, mistyped, malformed or unknown field (one `errors` entry each).', 400, ['invalid_request', 'malformed_json']),
		'403': problem(
			'The organization is not on Enterprise, the key lacks the scope, or the user is an admin or super admin.',
			403,
			['plan_required', 'insufficient_scope', 'protected_user'],
			responses.Forbidden.headers,
		),
		'404': { $ref: '#/components/responses/NotFound' },
		'409': problem(
			'The e-mail, the username it would be (another user’s SCIM userName), or the external id is taken in the organization; `user_id` names who has it.',
			409,
			['email_taken', 'username_taken', 'external_id_taken'],
		),
		'413': problem('The body is over 16 KiB.', 413, ['payload_too_large']),
		'415': problem('The body is not `application/json`.', 415, ['unsupported_media_type']),
		'422': problem('The role cannot be granted through the API.', 422, ['role_not_allowed']),
		...Object.fromEntries(Object.entries(commonErrors).filter(([status]) => status !== '403')),
	},
};

/** The feed needs the scope of each event type it returns; either scope opens it. */
const eventSecurity = {
	security: [{ bearerAuth: [] }],
	'x-required-scope': 'read:users for user.* and group.*; read:enrollments for enrollment.* and certificate.*',
};

const listEvents = {
	operationId: 'listEvents',
	summary: 'Read the event feed',
	description:
		'What happened in the organization, oldest first. Pass the last id you received as `after` to get every event exactly once, in id ' +
		'order: an event appears only once no event with a smaller id can still appear. A key sees the types its scopes cover ' +
		'(user.* needs read:users; enrollment.* and certificate.* need read:enrollments); asking for another type answers 403. ' +
		'Events are kept at least EVENT_RETENTION_DAYS (30) days; an `after` that retention removed answers 410.',
	tags: ['Event'],
	...eventSecurity,
	parameters: queryParameters(eventQuery),
	responses: {
		'200': ok('Events after the cursor.', ref('EventList'), {
			Link: { description: 'RFC 8288 `rel="next"` (absolute) while has_more is true.', schema: { type: 'string' } },
		}),
		'400': problem('An unknown, repeated or malformed parameter, an unknown type, or an `after` that is not an event of your organization.', 400, ['invalid_request']),
		'410': problem('The event named by `after` was removed by retention: read again without `after`.', 410, ['cursor_expired']),
		...commonErrors,
	},
};

const getEvent = {
	operationId: 'getEvent',
	summary: 'Retrieve an event',
	description: 'One event of the feed. An event of a type the key cannot see, another organization’s id and an unknown id all answer the same 404. A key that can see no type at all gets 403.',
	tags: ['Event'],
	...eventSecurity,
	parameters: idParameter('event', /^evt_[0-9a-f]{28}$/),
	responses: {
		'200': ok('The event.', ref('Event')),
		'404': { $ref: '#/components/responses/NotFound' },
		...commonErrors,
	},
};

const feedHead = {
	operationId: 'getEventFeedHead',
	summary: 'Where the event feed ends now',
	description:
		'`after` is the id of the newest event this key can see (its scopes decide the types), or null. Reading the feed with it as ' +
		'`after` returns exactly what happens from now on: like every page, it never passes an event that can still appear.',
	tags: ['Event'],
	...eventSecurity,
	responses: {
		'200': ok('The head of the feed.', ref('FeedHead')),
		'400': problem('The query has a parameter: this endpoint takes none.', 400, ['invalid_request']),
		...commonErrors,
	},
};

const currentKey = {
	operationId: 'getCurrentApiKey',
	summary: 'The calling API key',
	description:
		'Any valid key, whatever its scopes: its id, label, scopes and organization. An answer proves the address is the LMS and the key ' +
		'authenticates (an unknown path answers 404 before any key is checked), which is what an integration’s connection test needs.',
	tags: ['ApiKey'],
	security: [{ bearerAuth: [] }],
	'x-required-scope': 'none',
	responses: {
		'200': ok('The key.', ref('ApiKey')),
		'400': problem('The query has a parameter: this endpoint takes none.', 400, ['invalid_request']),
		...commonErrors,
		'403': problem('The organization is not on Enterprise.', 403, ['plan_required']),
	},
};

export function openApiDocument() {
	return {
		openapi: '3.1.0',
		jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
		info: {
			title: 'LMS REST API',
			version: '1.0.0',
			description:
				'Read users, courses, enrollments and certificates of one organization, create, change and deactivate users, create and change enrollments, read the event feed, and subscribe webhook endpoints. Enterprise plan only. ' +
				'Every POST and PATCH takes an `Idempotency-Key` header, so that a retry after a lost answer never acts twice; batch endpoints take up to 100 items in one request. ' +
				`Every request is limited per client IP (shared with the whole platform). Scopes: ${SCOPES.join(', ')}; ` +
				'each operation names the one it needs in `x-required-scope`.',
			contact: { name: 'n8n-nodes-lms', url: 'https://github.com/n8n-nodes-lms/n8n-nodes-lms', email: 'maintainers@n8n-nodes-lms.dev' },
			license: { name: 'MIT', url: 'https://github.com/n8n-nodes-lms/n8n-nodes-lms/blob/main/LICENSE' },
		},
		// Every deployment has its own address: a generator or gateway sets `origin` to the API base
		// URL that Settings shows (scheme, host and port, without /api/v1).
		servers: [
			{
				url: '{origin}',
				description: 'The LMS server you run or use.',
				variables: { origin: { default: 'http://127.0.0.1:3000', description: 'Scheme, host and port of the LMS server.' } },
			},
		],
		paths: withIdempotency({
			'/api/v1/users': {
				...listOperation('listUsers', 'List users', 'User', 'read:users', listUsers),
				post: createUser,
			},
			'/api/v1/users/batch': { post: batchOperation('createUsers', 'Create up to 100 users at once', 'User', 'write:users', createUserBody) },
			'/api/v1/users/{id}': {
				...getOperation('getUser', 'Retrieve a user', 'User', 'read:users', ID_PATTERNS.user),
				patch: updateUser,
			},
			'/api/v1/courses': listOperation('listCourses', 'List published courses', 'Course', 'read:courses', listCourses),
			'/api/v1/courses/{id}': getOperation('getCourse', 'Retrieve a published course', 'Course', 'read:courses', ID_PATTERNS.course),
			'/api/v1/enrollments': {
				...listOperation('listEnrollments', 'List enrollments', 'Enrollment', 'read:enrollments', listEnrollments),
				post: createEnrollment,
			},
			'/api/v1/enrollments/batch': {
				post: batchOperation('createEnrollments', 'Enroll up to 100 students in courses at once', 'Enrollment', 'write:enrollments', createEnrollmentBody, {
					schema: enrollmentBatchOptions,
					answers: 'with `if_exists: "return"`, 200 with the existing enrollment for a student already enrolled in the course',
				}),
			},
			'/api/v1/enrollments/{id}': {
				...getOperation('getEnrollment', 'Retrieve an enrollment', 'Enrollment', 'read:enrollments', ID_PATTERNS.enrollment),
				patch: updateEnrollment,
			},
			'/api/v1/certificates': listOperation('listCertificates', 'List certificates', 'Certificate', 'read:enrollments', listCertificates),
			'/api/v1/certificates/{id}': getOperation('getCertificate', 'Retrieve a certificate', 'Certificate', 'read:enrollments', ID_PATTERNS.certificate),
			'/api/v1/events': { get: listEvents },
			'/api/v1/events/head': { get: feedHead },
			'/api/v1/reports/course_completion': courseCompletionReport,
			'/api/v1/events/{id}': { get: getEvent },
			'/api/v1/webhook_endpoints': webhookEndpoints,
			'/api/v1/webhook_endpoints/{id}': webhookEndpoint,
			'/api/v1/webhook_endpoints/{id}/receipts': webhookReceipts,
			'/api/v1/webhook_endpoints/{id}/deliveries': webhookDeliveries,
			'/api/v1/webhook_endpoints/{id}/deliveries/{delivery_id}/attempts': webhookDeliveryAttempts,
			'/api/v1/webhook_endpoints/{id}/deliveries/{delivery_id}/retry': webhookDeliveryRetry,
			'/api/v1/webhook_endpoints/{id}/test': webhookTest,
			'/api/v1/webhook_endpoints/{id}/rotate_secret': webhookRotateSecret,
			...groupPaths({ ref, ok, problem, security, listOperation, getOperation, idParameter, commonErrors }),
			'/api/v1/key': { get: currentKey },
			'/api/v1/openapi.json': {
				get: {
					operationId: 'getOpenApiDocument',
					summary: 'This document',
					description: 'The OpenAPI 3.1 description of /api/v1, public so that a generator or gateway can read it before it has a key.',
					security: [],
					tags: ['Meta'],
					responses: {
						'200': ok('The OpenAPI 3.1 document.', {
							type: 'object',
							required: ['openapi', 'paths'],
							properties: { openapi: { type: 'string' }, paths: { type: 'object' } },
						}),
						'405': { $ref: '#/components/responses/MethodNotAllowed' },
						'429': { $ref: '#/components/responses/TooManyRequests' },
					},
				},
			},
		}, problem),
		components: {
			securitySchemes: {
				bearerAuth: {
					type: 'http',
					scheme: 'bearer',
					bearerFormat: 'lms_ + 32 base62 + 6-character checksum',
					description: 'An API key created by a Super Admin in Settings → API Keys.',
				},
			},
			parameters: Object.fromEntries(Object.entries(PAGING).map(([name, rule]) => [name, queryParameter(name, rule)])),
			schemas: componentSchemas,

			responses,
		},
		tags: [
			{ name: 'User', description: 'People of the organization; created, changed, deactivated and reactivated with write:users (SPEC §16).' },
			{ name: 'Course', description: 'Published courses of the organization; the read:courses scope.' },
			{ name: 'Enrollment', description: 'Enrollments and their creation.' },
			{ name: 'Group', description: 'Sets of users (departments, sites, roles): roster data, read:users / write:users (SPEC §20).' },
			{ name: 'Assignment', description: 'A course assigned to a group: its students are enrolled, now and as they join; read:enrollments / write:enrollments.' },
			{ name: 'Certificate', description: 'Covered by the read:enrollments scope.' },
			{ name: 'Report', description: 'Summaries for compliance; covered by the read:enrollments scope.' },
			{ name: 'Event', description: 'The feed of what happened: read by cursor.' },
			{ name: 'WebhookEndpoint', description: 'Where the LMS posts events (SPEC §12); the manage:webhooks scope.' },
			{ name: 'ApiKey', description: 'The calling key: who it is, what it may do. Keys are managed in Settings → API Keys, never through the API.' },
			{ name: 'Meta', description: 'This document, served without a key.' },
		],
	};
}
