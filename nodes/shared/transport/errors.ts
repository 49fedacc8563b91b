import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { LmsProblem } from '../types';

/** What the transport knows about the request that failed, so messages can name ids. */
export interface LmsRequestSummary {
	method: string;
	/** Path under /api/v1, e.g. `/users/usr_123`. */
	endpoint: string;
	baseURL: string;
	body?: IDataObject;
	/** How many times the request was sent (more than one after 429 retries). */
	attempts?: number;
	/** An item of a batch: the request that really went (`/enrollments/batch`) and the item's place in it. */
	batch?: { endpoint: string; position: number };
	/** The input item the request served. */
	itemIndex?: number;
}

/** The parts of a failed HTTP call the error mapping needs, whatever wrapped them. */
export interface LmsHttpFailure {
	status?: number;
	headers: Record<string, unknown>;
	problem?: LmsProblem;
	/** The failure as received, handed to NodeApiError so n8n can show the raw response. */
	cause: unknown;
	/** A network error code such as ECONNREFUSED when no response came back. */
	networkCode?: string;
}

interface WireError {
	code?: string;
	message?: string;
	response?: { status?: number; headers?: Record<string, unknown>; data?: unknown };
}

/**
 * The transport hands over error responses in axios's error shape (`{ response: { status,
 * headers, data } }`). Failures without a response (refused connection, DNS) arrive as the
 * NodeApiError n8n throws; older n8n versions keep axios's error as its `cause`, newer ones
 * drop it, so both are accepted.
 */
export function httpFailureOf(error: unknown): LmsHttpFailure {
	const wrapped = error instanceof NodeApiError && error.cause ? error.cause : error;
	const wire = (wrapped ?? {}) as WireError;
	const response = wire.response;
	const data = response?.data;
	const problem =
		data && typeof data === 'object' && !Array.isArray(data) ? (data as LmsProblem) : undefined;
	return {
		status: response?.status,
		headers: response?.headers ?? {},
		problem,
		cause: wrapped,
		networkCode: response ? undefined : wire.code,
	};
}

export function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
	const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
	const value = key === undefined ? undefined : headers[key];
	if (value === undefined || value === null) return undefined;
	return Array.isArray(value) ? String(value[0]) : String(value);
}

const RESOURCE_LABELS: Record<string, string> = {
	users: 'User',
	courses: 'Course',
	enrollments: 'Enrollment',
	certificates: 'Certificate',
};

/** `/users/usr_1` → { label: 'User', id: 'usr_1' }; list paths have no id. */
function recordOf(endpoint: string): { label: string; id?: string } {
	const [collection, id] = endpoint.replace(/^\/+/, '').split('/');
	return { label: RESOURCE_LABELS[collection] ?? 'Record', id: id ? decodeURIComponent(id) : undefined };
}

function requiredScope(failure: LmsHttpFailure): string | undefined {
	if (failure.problem?.required_scope) return failure.problem.required_scope;
	const challenge = headerValue(failure.headers, 'www-authenticate');
	const fromHeader = challenge?.match(/scope="([^"]+)"/)?.[1];
	if (fromHeader) return fromHeader;
	return failure.problem?.detail?.match(/\b(?:read|write):[a-z_]+\b/)?.[0];
}

function bodyField(request: LmsRequestSummary, field: string): string {
	const value = request.body?.[field];
	return typeof value === 'string' && value !== '' ? value : '(empty)';
}

/**
 * 409 invalid_transition (SPEC §10): the server names the enrollment's status (`from`) and where
 * the request leads (`to`); the sentence says what state it is in and what to do instead.
 */
function transitionMessage(problem: LmsProblem, id: string | undefined): string {
	const enrollment = `Enrollment ${id ?? ''}`.trim();
	const from = problem.from ?? 'in another state';
	const to = problem.to;
	if (from === 'completed') {
		return `${enrollment} is completed, and a completed enrollment is final: it cannot be withdrawn, reactivated or change progress. Leave it as it is, or filter Get Many on status Active before updating`;
	}
	if (to === from || to === undefined) {
		return `${enrollment} is ${from}, so its progress cannot change: reactivate it first (Update → Change: Reactivate), then set the progress`;
	}
	if (to === 'active') {
		return `${enrollment} is ${from} and cannot be reactivated from that state: only withdrawn or expired enrollments can be`;
	}
	const verb = to === 'completed' ? 'completed' : to;
	return `${enrollment} is ${from}, so it cannot become ${verb}: reactivate it first (Update → Change: Reactivate), then ${to === 'completed' ? 'complete' : 'withdraw'} it`;
}

/** The message says what to do; the server's own sentence goes into the description. */
function messageFor(failure: LmsHttpFailure, request: LmsRequestSummary): string {
	const { status, problem } = failure;
	const record = recordOf(request.endpoint);
	switch (problem?.code) {
		case 'missing_api_key':
			return 'The LMS received no API key: check the API key in the credential';
		case 'invalid_api_key':
			return 'The LMS does not recognise this API key: check the API key in the credential (copy the whole key, starting with lms_)';
		case 'api_key_revoked':
			return 'The key was revoked: create a new key in Settings → API Keys and paste it into the credential';
		case 'api_key_rotated':
			return 'The key was rotated: paste the new key into the credential';
		case 'api_key_expired':
			return 'The key passed its expiry date: create a new key in Settings → API Keys and paste it into the credential';
		case 'plan_required':
			return "The LMS API needs the Enterprise plan: the key's organization is not on it, so ask your LMS administrator to upgrade";
		case 'insufficient_scope': {
			const scope = requiredScope(failure) ?? 'a scope this operation needs';
			return `The key lacks ${scope}: create a key with ${scope} in Settings → API Keys and paste it into the credential`;
		}
		case 'not_found':
			if (record.id) {
				const draft = record.label === 'Course' ? ' and be published' : '';
				return `${record.label} ${record.id} was not found: check the ${record.label} ID (it must exist${draft} in the key's organization)`;
			}
			return 'The LMS API was not found at this address: check the Base URL in the credential';
		case 'invalid_transition':
			return transitionMessage(problem, record.id);
		case 'student_not_found':
			return `Student ${bodyField(request, 'student_id')} was not found in the key's organization: check the Student ID`;
		case 'not_a_student':
			return `User ${bodyField(request, 'student_id')} is not a student: only users with the student role can be enrolled, check the Student ID`;
		case 'course_not_found':
			return `Course ${bodyField(request, 'course_id')} was not found in the key's organization: check the Course ID`;
		case 'course_not_published':
			return `Course ${bodyField(request, 'course_id')} is not published: publish it in the LMS first, or check the Course ID`;
		case 'already_enrolled':
			return `Student ${bodyField(request, 'student_id')} is already enrolled in course ${bodyField(request, 'course_id')} (enrollment ${problem.enrollment_id ?? 'unknown'}): set "If Already Enrolled" to "Return Existing Enrollment" to carry on instead of failing`;
		case 'email_taken':
			if (!problem.user_id) return `The email ${bodyField(request, 'email')} is another account's sign-in name: use another address`;
			// Changing someone's email to one another user holds: only another address helps.
			if (request.method === 'PATCH') {
				return `The email ${bodyField(request, 'email')} already belongs to another user (${problem.user_id}): give ${record.id ?? 'this user'} another address, or change that user's email first`;
			}
			return `A user with email ${bodyField(request, 'email')} already exists (${problem.user_id}): if they are a student or instructor, Create or Update (Match By: Email) updates them instead; an admin's account is changed in the LMS only`;
		case 'username_taken':
			// The new e-mail would also be the user's username (SCIM userName), which another user holds.
			return `The email ${bodyField(request, 'email')} is the username (SCIM userName) of another user (${problem.user_id ?? 'unknown'}): use another address, or change that user's username in your identity provider first`;
		case 'external_id_taken':
			if (request.method === 'PATCH') {
				return `The external ID ${bodyField(request, 'external_id')} already belongs to another user (${problem.user_id ?? 'unknown'}): give ${record.id ?? 'this user'} another external ID, or clear that user's first`;
			}
			return `A user with external ID ${bodyField(request, 'external_id')} already exists (${problem.user_id ?? 'unknown'}): if they are a student or instructor, Create or Update (Match By: External ID) updates them instead; an admin's account is changed in the LMS only`;
		case 'role_not_allowed':
			return 'The API grants only the student and instructor roles: admins and super admins are made in the LMS itself';
		case 'protected_user':
			return `${record.label} ${record.id ?? ''} is an admin or super admin, and those are changed only in the LMS itself, not through the API`.replace('  ', ' ');
		case 'user_deactivated':
			// Reactivating an enrollment (PATCH) names the enrollment, not its student.
			if (request.body?.student_id === undefined && record.id) {
				return `The student of Enrollment ${record.id} is deactivated: reactivate the user first (LMS Users → Reactivate), then reactivate the enrollment`;
			}
			return `Student ${bodyField(request, 'student_id')} is deactivated: reactivate them first (LMS Users → Reactivate), or leave them out`;
		case 'due_date_on_completed':
			return `Enrollment ${record.id ?? ''} is completed, so its due date no longer changes: leave the due date alone for completed enrollments (filter Get Many on status Active first)`.replace('Enrollment  ', 'The enrollment ');
		case 'too_many_endpoints':
			return "The LMS organization already has the most webhook endpoints it allows (20): delete unused ones in the LMS's Settings → Webhooks, then activate the workflow again";
		case 'invalid_webhook_url':
			return "The LMS refused n8n's webhook address as a destination: it must be an http(s) address the LMS may reach (set n8n's WEBHOOK_URL to its public address), or the LMS operator must allow it (WEBHOOK_ALLOWED_HOSTS)";
		case 'cursor_expired':
			return 'The LMS no longer keeps the events after the trigger\'s last position (past its retention): the trigger starts again from now';
		case 'idempotency_key_reused':
			return 'The LMS already received another request under this write\'s Idempotency-Key (made from the execution, the node and the item): its values changed between two tries of the same execution, for example through an expression using the time. Run the workflow again, which sends new keys';
		case 'idempotency_key_in_use':
			return `The LMS was still working on an earlier try of this request after ${request.attempts ?? 1} attempts: check in the LMS whether the change was made before running the workflow again`;
		case 'group_name_taken':
			return `A group named ${bodyField(request, 'name')} already exists (${problem.group_id ?? 'unknown'}): pick that group instead, or give this one another name (names are unique in any case)`;
		case 'group_not_found':
			return `Group ${bodyField(request, 'group_id')} was not found in the key's organization: check the Group (pick it From List)`;
		case 'user_not_found': {
			const ids = Array.isArray(problem.user_ids) ? problem.user_ids.slice(0, 5).join(', ') : 'some of the users';
			return `${ids} ${Array.isArray(problem.user_ids) && problem.user_ids.length === 1 ? 'is' : 'are'} not a user of the key's organization, so no member was changed: check the user IDs, or leave those out`;
		}
		case 'assignment_exists':
			return `The course ${bodyField(request, 'course_id')} is already assigned to group ${bodyField(request, 'group_id')} (${problem.assignment_id ?? 'unknown'}): nothing to do, or unassign it first to change its due days`;
		case 'method_not_allowed':
			return `The LMS at this Base URL does not offer ${request.method} ${request.endpoint} (HTTP 405): the LMS may be older than this node, so ask its operator to update it, or check the Base URL`;
		case 'payload_too_large':
			return 'The request was too large for the LMS (HTTP 413): shorten the longest field values (names, external IDs), or send fewer items at once';
		case 'malformed_json':
		case 'unsupported_media_type':
			return `The LMS could not read the request the node sent (${problem.code}): a proxy in front of the LMS may change requests, so check the Base URL points at the LMS itself`;
		case 'rate_limited':
			return `The LMS kept answering "too many requests" after ${request.attempts ?? 1} attempts: run the workflow again in a minute (the limit is per IP address and shared with every other client calling the LMS from this n8n)`;
	}
	if (status === 400) {
		const fields = (problem?.errors ?? [])
			.map((entry) => `${entry.param ?? 'request'}: ${entry.message ?? entry.code ?? 'invalid'}`)
			.join('; ');
		return fields
			? `The LMS rejected the request: ${fields}`
			: 'The LMS rejected the request: check the node parameters';
	}
	if (status === 404) {
		return 'The LMS API was not found at this address: check the Base URL in the credential';
	}
	if (status === 401) return 'The LMS refused the API key: check the API key in the credential';
	if (status === 429) return messageFor({ ...failure, problem: { code: 'rate_limited' } }, request);
	if (status !== undefined && status >= 500) {
		return `The LMS failed to process the request (HTTP ${status}): try again; if it keeps failing, give the request ID to the LMS operator`;
	}
	return `The LMS rejected the request (HTTP ${status ?? 'error'}${problem?.title ? `: ${problem.title}` : ''})`;
}

function descriptionFor(failure: LmsHttpFailure, request: LmsRequestSummary): string | undefined {
	const { problem } = failure;
	const parts: string[] = [];
	if (problem?.detail) parts.push(problem.detail);
	if (problem?.request_id) parts.push(`Request ID: ${problem.request_id}.`);
	if (request.batch) {
		// Which input item this is, by what identifies it, and the request that really carried it.
		const fields = Object.entries(request.body ?? {})
			.filter(([name, value]) => typeof value === 'string' && (name.endsWith('_id') || name === 'email'))
			.map(([name, value]) => `${name} ${String(value)}`);
		const item = request.itemIndex === undefined ? 'An input item' : `Input item ${request.itemIndex}`;
		parts.push(`${item}${fields.length ? ` (${fields.join(', ')})` : ''}, sent as item ${request.batch.position} of ${request.method} ${request.baseURL}${request.batch.endpoint}.`);
	} else {
		parts.push(`${request.method} ${request.baseURL}${request.endpoint}`);
	}
	return parts.join(' ');
}

/**
 * Turns any failure of an LMS call into the NodeApiError a workflow builder sees: a message that
 * says what to do next, keyed on the problem's stable `code`, and the server's `detail` (with
 * the request ID to quote to the operator) as the description.
 */
export function lmsApiError(
	node: INode,
	error: unknown,
	request: LmsRequestSummary,
	itemIndex?: number,
): NodeApiError {
	const failure = httpFailureOf(error);
	if (failure.status === undefined) {
		// No response at all. The raw error is not passed on: NodeApiError would swap our message
		// for a generic one whenever it recognises a network code.
		const reason = failure.networkCode ?? (error as Error)?.message ?? 'no response';
		return new NodeApiError(
			node,
			{ message: 'no response' } as JsonObject,
			{
				message: `Could not reach the LMS at ${request.baseURL}: check the Base URL in the credential and that the LMS is running`,
				description: `${request.method} ${request.baseURL}${request.endpoint} failed without a response (${reason}).`,
				itemIndex,
			},
		);
	}
	return new NodeApiError(node, failure.cause as JsonObject, {
		message: messageFor(failure, request),
		description: descriptionFor(failure, request),
		httpCode: String(failure.status),
		itemIndex,
	});
}

/** The LMS problem carried by an error this module produced, if any. */
export function lmsProblemOf(error: unknown): LmsProblem | undefined {
	if (error instanceof NodeApiError) {
		const data = error.context?.data;
		if (data && typeof data === 'object') return data as LmsProblem;
	}
	return httpFailureOf(error).problem;
}

/**
 * n8n needs to know which input item failed; errors that are not ours yet (a bad parameter, a
 * bug) become NodeOperationErrors so the UI still shows them against the right item.
 */
export function asNodeError(
	node: INode,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context = { ...error.context, itemIndex: error.context?.itemIndex ?? itemIndex };
		return error;
	}
	return new NodeOperationError(node, error as Error, { itemIndex });
}
