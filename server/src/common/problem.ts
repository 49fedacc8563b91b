/**
 * Every error the server answers with is a Problem: RFC 9457 problem details plus a stable
 * `code`. The web layer throws Problems (and http/rule-problems.ts makes them from the domain's
 * RuleErrors); one handler in http/ turns them into responses.
 */
export interface FieldError {
	param: string;
	code: string;
	message: string;
}

export interface ProblemInit {
	status: number;
	code: string;
	title: string;
	detail: string;
	errors?: FieldError[];
	headers?: Record<string, string>;
	/** Extension members, e.g. `enrollment_id` on a 409. */
	extra?: Record<string, unknown>;
}

export class Problem extends Error {
	readonly status: number;
	readonly code: string;
	readonly title: string;
	readonly detail: string;
	readonly errors?: FieldError[];
	readonly headers: Record<string, string>;
	readonly extra: Record<string, unknown>;

	constructor(init: ProblemInit) {
		super(init.detail);
		this.name = 'Problem';
		this.status = init.status;
		this.code = init.code;
		this.title = init.title;
		this.detail = init.detail;
		this.errors = init.errors;
		this.headers = init.headers ?? {};
		this.extra = init.extra ?? {};
	}
}

export const PROBLEM_TYPE_BASE = 'https://lms.example/problems/';

const REALM = 'Bearer realm="lms"';

/** How much of a bad request an invalid_request answer repeats back. */
const MAX_ERRORS_SHOWN = 10;
const MAX_ECHOED_CHARS = 64;

/** Long client-supplied text shortened to its start, marked with an ellipsis. */
export function clip(text: string, max = MAX_ECHOED_CHARS): string {
	return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
const INVALID_TOKEN = `${REALM}, error="invalid_token"`;

/**
 * The web layer's own answers: one constructor per stable code, so wording and headers live in
 * one place. Broken business rules are answered by http/rule-problems.ts.
 */
export const problems = {
	missingApiKey: () =>
		new Problem({
			status: 401,
			code: 'missing_api_key',
			title: 'Missing API key',
			detail: 'Send your API key in the Authorization header: "Authorization: Bearer lms_…".',
			headers: { 'WWW-Authenticate': REALM },
		}),
	invalidApiKey: () =>
		new Problem({
			status: 401,
			code: 'invalid_api_key',
			title: 'Invalid API key',
			detail: 'The API key is not valid. Check that it was copied whole, or ask a Super Admin for a new key in Settings → API Keys.',
			headers: { 'WWW-Authenticate': INVALID_TOKEN },
		}),
	apiKeyRevoked: () =>
		new Problem({
			status: 401,
			code: 'api_key_revoked',
			title: 'API key revoked',
			detail: 'This API key was revoked and no longer works. Ask a Super Admin to create a new key in Settings → API Keys.',
			headers: { 'WWW-Authenticate': INVALID_TOKEN },
		}),
	apiKeyRotated: () =>
		new Problem({
			status: 401,
			code: 'api_key_rotated',
			title: 'API key rotated',
			detail: 'This API key was rotated and replaced by a new one. Use the new key shown when it was rotated.',
			headers: { 'WWW-Authenticate': INVALID_TOKEN },
		}),
	apiKeyExpired: () =>
		new Problem({
			status: 401,
			code: 'api_key_expired',
			title: 'API key expired',
			detail: 'This API key passed the expiry date set when it was created and no longer works. Ask a Super Admin to create a new key in Settings → API Keys.',
			headers: { 'WWW-Authenticate': INVALID_TOKEN },
		}),
	planRequired: () =>
		new Problem({
			status: 403,
			code: 'plan_required',
			title: 'Enterprise plan required',
			detail: 'The REST API is available on the Enterprise plan only. Upgrade the organization to use its API keys.',
		}),
	/** One scope needed, or (events) any one of several. */
	insufficientScope: (scope: string, ...alternatives: string[]) => {
		const named = [scope, ...alternatives].join(' or ');
		return new Problem({
			status: 403,
			code: 'insufficient_scope',
			title: 'Insufficient scope',
			detail: `This API key lacks the ${named} scope. Create a key that includes ${named} in Settings → API Keys.`,
			headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${[scope, ...alternatives].join(' ')}"` },
			extra: { required_scope: scope },
		});
	},
	rateLimited: (retryAfterSeconds: number) =>
		new Problem({
			status: 429,
			code: 'rate_limited',
			title: 'Too many requests',
			detail: `This IP address sent too many requests. Retry after ${retryAfterSeconds} seconds.`,
			headers: { 'Retry-After': String(retryAfterSeconds) },
		}),
	notFound: (what = 'resource') =>
		new Problem({
			status: 404,
			code: 'not_found',
			title: 'Not found',
			detail: `No ${what} exists at this address. Check the path and the id.`,
		}),
	methodNotAllowed: (allow: string[]) =>
		new Problem({
			status: 405,
			code: 'method_not_allowed',
			title: 'Method not allowed',
			detail: `This path accepts ${allow.join(', ')} only.`,
			headers: { Allow: allow.join(', ') },
		}),
	invalidRequest: (all: FieldError[]) => {
		// The answer names what the client sent; bounded, so a huge bad query is not echoed back huge.
		const errors = all.slice(0, MAX_ERRORS_SHOWN).map((e) => ({ ...e, param: clip(e.param), message: clip(e.message, 300) }));
		const more = all.length - errors.length;
		return new Problem({
			status: 400,
			code: 'invalid_request',
			title: 'Invalid request',
			detail: `The request has ${all.length === 1 ? 'a problem' : `${all.length} problems`}: ${errors
				.map((e) => e.message)
				.join(' ')}${more > 0 ? ` (and ${more} more, not listed)` : ''}`,
			errors,
		});
	},
	malformedJson: () =>
		new Problem({
			status: 400,
			code: 'malformed_json',
			title: 'Malformed JSON',
			detail: 'The request body is not valid JSON. Send a JSON object such as {"student_id": "usr_…", "course_id": "crs_…"}.',
		}),
	payloadTooLarge: (limit: string) =>
		new Problem({
			status: 413,
			code: 'payload_too_large',
			title: 'Payload too large',
			detail: `The request body is larger than ${limit}. Send only the documented fields.`,
		}),
	unsupportedMediaType: () =>
		new Problem({
			status: 415,
			code: 'unsupported_media_type',
			title: 'Unsupported media type',
			detail: 'Send the body as JSON with the header "Content-Type: application/json".',
		}),
	/** The shared limit store (Redis) cannot be reached: refuse rather than serve unlimited. */
	rateLimitUnavailable: () =>
		new Problem({
			status: 503,
			code: 'rate_limit_unavailable',
			title: 'Service unavailable',
			detail: 'The request limiter cannot reach its store, so the server is refusing requests for now. Retry in a few seconds.',
			headers: { 'Retry-After': '5' },
		}),
	notReady: (failing: string[]) =>
		new Problem({
			status: 503,
			code: 'not_ready',
			title: 'Not ready',
			detail: `The server cannot serve requests yet: ${failing.join(' and ')} unreachable.`,
			headers: { 'Retry-After': '5' },
			extra: { checks: Object.fromEntries(failing.map((name) => [name, 'unreachable'])) },
		}),
	internal: () =>
		new Problem({
			status: 500,
			code: 'internal_error',
			title: 'Internal server error',
			detail: 'Something went wrong on our side. Try again; if it persists, report the request id to the operator.',
		}),
} as const;
