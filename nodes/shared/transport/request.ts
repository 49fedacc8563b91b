import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { LmsApiCredentials } from '../types';
import { lmsApiBaseUrl } from './baseUrl';
import { headerValue, httpFailureOf, lmsApiError, type LmsRequestSummary } from './errors';
import { idempotencyKeyFor } from './idempotency';

export const LMS_CREDENTIAL_TYPE = 'lmsApi';

/**
 * The LMS allows 100 requests per minute per IP address, shared by every client behind that
 * address, and says how long to wait in `Retry-After`. Five attempts cover a full window even if
 * another client keeps eating the budget; the cap keeps a bogus header from parking a workflow.
 */
export const MAX_ATTEMPTS = 5;
export const MAX_RETRY_WAIT_SECONDS = 65;
/** Used when a 429 comes without a usable Retry-After (a proxy's, not the LMS's). */
const FALLBACK_RETRY_WAIT_SECONDS = 15;

export type LmsFunctions = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export interface LmsRequest {
	method: IHttpRequestMethods;
	/** Path under /api/v1, starting with a slash. */
	endpoint: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** The input item this request serves, so errors point at it. */
	itemIndex?: number;
	/**
	 * The Idempotency-Key of a write. By default a POST or PATCH serving an input item gets one made
	 * from the execution, the node and the item (idempotency.ts); a batch passes its own.
	 */
	idempotencyKey?: string;
}

/** Seconds to wait before retrying a 429, or undefined when the failure is not a 429. */
export function retryAfterSeconds(error: unknown, now = Date.now()): number | undefined {
	const failure = httpFailureOf(error);
	if (failure.status !== 429) return undefined;
	const header = headerValue(failure.headers, 'retry-after')?.trim();
	let seconds = FALLBACK_RETRY_WAIT_SECONDS;
	if (header && /^\d+(\.\d+)?$/.test(header)) {
		seconds = Number(header);
	} else if (header && !Number.isNaN(Date.parse(header))) {
		// RFC 9110 also allows an HTTP date.
		seconds = Math.max(0, (Date.parse(header) - now) / 1000);
	}
	return Math.min(seconds, MAX_RETRY_WAIT_SECONDS);
}

/**
 * Seconds to wait before sending a write again because the LMS is still running the first
 * request with its Idempotency-Key (409 idempotency_key_in_use: a retry that came too early);
 * the second try gets the first request's answer. Undefined for any other failure.
 */
function inUseWaitSeconds(error: unknown): number | undefined {
	const failure = httpFailureOf(error);
	if (failure.status !== 409 || failure.problem?.code !== 'idempotency_key_in_use') return undefined;
	const header = Number(headerValue(failure.headers, 'retry-after'));
	return Number.isFinite(header) && header > 0 ? Math.min(header, MAX_RETRY_WAIT_SECONDS) : 1;
}

/**
 * The one function every LMS node calls: resolves the API address from the credential, lets n8n
 * add the Bearer key, waits out 429s, and turns failures into actionable NodeApiErrors.
 */
export async function lmsApiRequest(this: LmsFunctions, request: LmsRequest): Promise<IDataObject> {
	const credentials = await this.getCredentials<LmsApiCredentials>(LMS_CREDENTIAL_TYPE);
	const baseURL = lmsApiBaseUrl(credentials.baseUrl);
	if (!baseURL) {
		throw new NodeOperationError(
			this.getNode(),
			'The Base URL in the LMS API credential is not a web address',
			{
				description:
					'Enter the address of your LMS starting with https:// (or http://), for example https://lms.example.com',
				itemIndex: request.itemIndex,
			},
		);
	}

	const isWrite = request.method === 'POST' || request.method === 'PATCH';
	const idempotencyKey =
		request.idempotencyKey ??
		(isWrite && request.itemIndex !== undefined
			? idempotencyKeyFor(this, `i${request.itemIndex}`, request.method, request.endpoint)
			: undefined);

	const summary: LmsRequestSummary = {
		method: request.method,
		endpoint: request.endpoint,
		baseURL,
		body: request.body,
	};

	for (let attempt = 1; ; attempt++) {
		// A fresh options object each time: n8n writes the auth header into the one it is given.
		const options: IHttpRequestOptions = {
			method: request.method,
			baseURL,
			url: request.endpoint,
			qs: request.qs,
			// A list in the query is the parameter repeated (users?external_id=a&external_id=b), as the LMS reads it.
			arrayFormat: 'repeat',
			body: request.body,
			// The same key on every attempt: a repeat of a request whose answer was lost is answered
			// from the first one.
			...(idempotencyKey === undefined ? {} : { headers: { 'Idempotency-Key': idempotencyKey } }),
			json: true,
			// The key belongs to the LMS only; never hand it to another host on a redirect.
			sendCredentialsOnCrossOriginRedirect: false,
			// Error statuses come back as responses: the NodeApiError n8n would throw instead keeps
			// neither the headers (Retry-After) nor, in n8n-workflow 2.x, the response at all (its
			// `cause` class field overwrites it), and n8n would also resend every 401 once.
			ignoreHttpStatusErrors: true,
			returnFullResponse: true,
		};
		let response: { body: unknown; headers: Record<string, unknown>; statusCode: number };
		try {
			response = await this.helpers.httpRequestWithAuthentication.call(
				this,
				LMS_CREDENTIAL_TYPE,
				options,
			);
		} catch (error) {
			// With every status accepted, only failures without a response land here.
			throw lmsApiError(this.getNode(), error, { ...summary, attempts: attempt }, request.itemIndex);
		}

		if (response.statusCode >= 400) {
			// The shape httpFailureOf reads (axios's error), so the mapping stays in one place.
			const failure = {
				response: { status: response.statusCode, headers: response.headers, data: response.body },
			};
			const waitSeconds = retryAfterSeconds(failure) ?? inUseWaitSeconds(failure);
			if (waitSeconds !== undefined && attempt < MAX_ATTEMPTS) {
				await sleep(waitSeconds * 1000);
				continue;
			}
			throw lmsApiError(this.getNode(), failure, { ...summary, attempts: attempt }, request.itemIndex);
		}

		// 204 No Content (a deleted webhook endpoint) is the one answer without a body.
		if (response.statusCode === 204) return {};
		// Every LMS answer is a JSON object; anything else means the Base URL leads elsewhere
		// (a login page, another app), and n8n items must be objects anyway.
		const body = response.body;
		if (body === null || typeof body !== 'object' || Array.isArray(body)) {
			throw new NodeOperationError(
				this.getNode(),
				`The answer from ${baseURL}${request.endpoint} is not from the LMS API: check the Base URL in the credential`,
				{ itemIndex: request.itemIndex },
			);
		}
		return body as IDataObject;
	}
}

/**
 * The error the request would have thrown had the LMS given this answer to it alone: for the
 * items of a batch, each answered with the status and body of its own request.
 */
export async function lmsAnswerError(
	this: LmsFunctions,
	answer: { status: number; body: unknown },
	request: LmsRequest,
	batch?: LmsRequestSummary['batch'],
): Promise<Error> {
	const credentials = await this.getCredentials<LmsApiCredentials>(LMS_CREDENTIAL_TYPE);
	const baseURL = lmsApiBaseUrl(credentials.baseUrl) ?? credentials.baseUrl;
	const failure = { response: { status: answer.status, headers: {}, data: answer.body } };
	return lmsApiError(
		this.getNode(),
		failure,
		{ method: request.method, endpoint: request.endpoint, baseURL, body: request.body, batch, itemIndex: request.itemIndex },
		request.itemIndex,
	);
}
