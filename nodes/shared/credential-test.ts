import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { lmsApiBaseUrl } from './transport/baseUrl';
import type { LmsProblem } from './types';

/**
 * The LMS API credential's test (n8n calls it when the credential is saved or retried; every LMS
 * node names it with `testedBy`). A declarative test cannot tell an LMS from any other server
 * that answers, so this one reads one user and passes only when the answer is the LMS's:
 *
 * - its list envelope `{ data: [...], pagination: {...} }`, or
 * - a problem+json whose `code` is one of the LMS's codes. `insufficient_scope` passes (the key
 *   works, it only lacks read:users); the codes that mean the key cannot work fail with the
 *   LMS's own `detail`.
 *
 * Anything else fails with what to do: a web page, another API, a 404, no answer at all, or a
 * Base URL that is not an http(s) address.
 */

const OK: INodeCredentialTestResult = { status: 'OK', message: 'Connection successful!' };

/** Every `code` the LMS answers with (SPEC §4 and the server's catalogue). */
const LMS_CODES = new Set([
	'missing_api_key',
	'invalid_api_key',
	'api_key_revoked',
	'api_key_rotated',
	'plan_required',
	'insufficient_scope',
	'rate_limited',
	'rate_limit_unavailable',
	'not_ready',
	'not_found',
	'method_not_allowed',
	'invalid_request',
	'malformed_json',
	'payload_too_large',
	'unsupported_media_type',
	'internal_error',
]);

/** Codes whose `detail` already tells the person what to do about the key. */
const KEY_CODES = new Set(['invalid_api_key', 'api_key_revoked', 'api_key_rotated']);

const CHECK_BASE_URL = "Check the credential's Base URL: it must be the LMS's own address, e.g. https://lms.example.com";

interface Answer {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

const fail = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function contentTypeOf(headers: Record<string, unknown>): string {
	const key = Object.keys(headers).find((name) => name.toLowerCase() === 'content-type');
	return key === undefined ? '' : String(headers[key]).toLowerCase();
}

/** The body as JSON if it is JSON (n8n parses JSON bodies itself; text may still be JSON). */
function jsonOf(body: unknown): unknown {
	if (typeof body !== 'string') return body;
	try {
		return JSON.parse(body) as unknown;
	} catch {
		return undefined;
	}
}

function isLmsList(body: unknown): boolean {
	return (
		isObject(body) &&
		Array.isArray(body.data) &&
		isObject(body.pagination) &&
		typeof body.pagination.total === 'number' &&
		typeof body.pagination.page === 'number'
	);
}

function lmsProblemOf(body: unknown): (LmsProblem & { code: string }) | undefined {
	if (!isObject(body) || typeof body.code !== 'string' || !LMS_CODES.has(body.code)) return undefined;
	return body as unknown as LmsProblem & { code: string };
}

/** Judges an HTTP answer from `<Base URL>/api/v1/users?per_page=1`. */
function judge(answer: Answer, endpoint: string): INodeCredentialTestResult {
	const body = jsonOf(answer.body);
	const status = answer.statusCode;
	if (status >= 200 && status < 300 && isLmsList(body)) return OK;

	const problem = lmsProblemOf(body);
	if (problem) {
		const detail = problem.detail ? `${problem.detail} (${problem.code})` : problem.code;
		switch (problem.code) {
			case 'insufficient_scope':
				// The key is valid and active; only its scopes decide what the nodes may do.
				return OK;
			case 'missing_api_key':
				return fail('The LMS received no API key (missing_api_key): paste the key into the API Key field');
			case 'plan_required':
				return fail(`${detail}. The key's organization must be on the Enterprise plan to use the API`);
			case 'rate_limited':
				return fail(`The LMS is rate limiting this IP address (rate_limited): wait a minute and test again`);
			case 'not_found':
			case 'method_not_allowed':
				return fail(`An LMS answers, but not at ${endpoint} (${problem.code}). Give the LMS's address without any path after it, e.g. https://lms.example.com`);
			case 'internal_error':
			case 'rate_limit_unavailable':
			case 'not_ready':
				return fail(`The LMS could not answer right now: ${detail}. Test again in a minute, or ask the LMS's operator`);
			default:
				return fail(KEY_CODES.has(problem.code) ? detail : `The LMS refused the test request: ${detail}`);
		}
	}

	const type = contentTypeOf(answer.headers);
	if (type.includes('html') || (typeof answer.body === 'string' && /^\s*<(!doctype|html)/i.test(answer.body))) {
		return fail(`A web page answers at ${endpoint} (HTTP ${status}), not the LMS API. ${CHECK_BASE_URL}`);
	}
	if (status === 404) {
		return fail(`Nothing answers at ${endpoint} (HTTP 404): no LMS API there. ${CHECK_BASE_URL}`);
	}
	if (body !== undefined && type.includes('json')) {
		return fail(`Another API answers at ${endpoint} (HTTP ${status}), not the LMS: its answer has neither the LMS's list nor one of its error codes. ${CHECK_BASE_URL}`);
	}
	return fail(`Something other than the LMS answers at ${endpoint} (HTTP ${status}${type ? `, ${type.split(';')[0]}` : ''}). ${CHECK_BASE_URL}`);
}

/** A request that never got an answer: say which part of the address to check. */
function unreachable(error: unknown, endpoint: string): INodeCredentialTestResult {
	const code = String((error as { code?: unknown })?.code ?? (error as { cause?: { code?: unknown } })?.cause?.code ?? '');
	const { host } = new URL(endpoint);
	switch (code) {
		case 'ECONNREFUSED':
			return fail(`Nothing accepts connections at ${host} (ECONNREFUSED). Check the Base URL's host and port, and that the LMS is running and reachable from n8n`);
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return fail(`The host in the Base URL cannot be found (${code}: ${host}). Check its spelling`);
		case 'ECONNRESET':
		case 'ETIMEDOUT':
		case 'ECONNABORTED':
		case 'ESOCKETTIMEDOUT':
			return fail(`${host} did not answer in time (${code}). Check the Base URL, and that n8n can reach the LMS (firewall, proxy)`);
		default:
			if (/CERT|SSL|TLS/i.test(code)) {
				return fail(`The LMS's HTTPS certificate at ${host} is not trusted (${code}). Fix the certificate, or check the Base URL`);
			}
			return fail(`Could not reach ${endpoint} (${code || (error as Error)?.message || 'no answer'}). Check the Base URL, and that n8n can reach the LMS`);
	}
}

export async function lmsApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = (credential.data ?? {}) as IDataObject;
	const base = lmsApiBaseUrl(data.baseUrl);
	if (base === undefined) {
		return fail(
			`The Base URL "${String(data.baseUrl ?? '').trim()}" is not a web address: start it with https:// (or http://), e.g. https://lms.example.com`,
		);
	}
	const apiKey = String(data.apiKey ?? '').trim();
	if (apiKey === '') return fail('The API Key field is empty: paste the key (lms_…) a Super Admin created in Settings → API Keys');
	const endpoint = `${base}/users`;

	let answer: Answer;
	try {
		// A credential test gets only `request` (ICredentialTestFunctions has no httpRequest);
		// n8n-core runs it through the same axios path as httpRequest.
		// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions
		answer = (await this.helpers.request({
			method: 'GET',
			uri: endpoint,
			qs: { per_page: 1 },
			headers: { Accept: 'application/json', Authorization: `Bearer ${apiKey}` },
			json: true,
			// Every status is an answer to judge, not an exception.
			simple: false,
			resolveWithFullResponse: true,
			timeout: 15_000,
		})) as Answer;
	} catch (error) {
		return unreachable(error, endpoint);
	}
	return judge(answer, endpoint);
}
