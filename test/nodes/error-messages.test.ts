/**
 * Every code the LMS answers has a node message that leads somewhere true (issue 43): it names
 * the record the request was about and the next step, is never the generic "The LMS rejected the
 * request (HTTP …)", and never advises an operation that cannot succeed for that request; and
 * README's error table lists every code. The codes come from the server itself (its rule table
 * and its problem factories), so a new code without a message or a README row fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INode } from 'n8n-workflow';

import { lmsApiError, type LmsRequestSummary } from '../../nodes/shared/transport';
import { problems } from '../../server/src/common/problem';
import { RuleError } from '../../server/src/common/rule-error';
import { RULE_CODES, ruleProblem } from '../../server/src/http/rule-problems';

const node = { id: 'n1', name: 'LMS', type: 'n8n-nodes-lms.lmsUsers', typeVersion: 2, position: [0, 0], parameters: {} } as INode;
const details = { field: 'type', what: 'user', role: 'admin', enrollmentId: 'enr_1', userId: 'usr_holder', from: 'completed', to: 'active', deliveryId: 'whd_1' };

/** Every problem code the API answers: the rules' and the problem factories'. */
function serverCodes(): Map<string, number> {
	const codes = new Map<string, number>();
	for (const code of RULE_CODES) {
		const problem = ruleProblem(new RuleError(code, 'A sentence.', details))!;
		codes.set(problem.code, problem.status);
	}
	// The factories take a noun, a list of methods or of field errors: each is called with what it reads.
	const field = { param: 'x', code: 'invalid_value', message: 'x.', toString: () => 'x' };
	for (const make of Object.values(problems) as Array<(...args: unknown[]) => { code: string; status: number }>) {
		const problem = make(Object.assign([field], { toString: () => 'thing' }), 'x');
		codes.set(problem.code, problem.status);
	}
	return codes;
}
const SERVER_CODES = serverCodes();

/** Codes no node request can meet, and why. */
const NOT_MET: Record<string, string> = {
	delivery_pending: 'webhook delivery repair (retry, test): no node calls it',
	endpoint_disabled: 'webhook delivery repair (retry, test): no node calls it',
	not_ready: '/readyz only',
	internal_error: 'a 5xx: the transport says to try again and quote the request ID',
	rate_limit_unavailable: 'a 5xx: the transport says to try again and quote the request ID',
};

/** For each code: the request a node makes that meets it, and what its message must say (the record, the next step). */
const CASES: Record<string, { request: Partial<LmsRequestSummary>; says: RegExp[]; never?: RegExp }> = {
	missing_api_key: { request: {}, says: [/API key in the credential/] },
	invalid_api_key: { request: {}, says: [/check the API key in the credential/] },
	api_key_revoked: { request: {}, says: [/revoked.*paste it into the credential/] },
	api_key_rotated: { request: {}, says: [/rotated.*paste the new key/] },
	api_key_expired: { request: {}, says: [/expiry.*paste it into the credential/] },
	plan_required: { request: {}, says: [/Enterprise plan/] },
	insufficient_scope: { request: {}, says: [/create a key with/] },
	invalid_request: { request: {}, says: [/check the node parameters|rejected the request: /] },
	not_found: { request: { endpoint: '/users/usr_gone' }, says: [/User usr_gone was not found: check/] },
	method_not_allowed: { request: { method: 'POST', endpoint: '/enrollments/batch' }, says: [/POST \/enrollments\/batch/, /update it, or check the Base URL/] },
	malformed_json: { request: {}, says: [/check the Base URL/] },
	unsupported_media_type: { request: {}, says: [/check the Base URL/] },
	payload_too_large: { request: {}, says: [/shorten|fewer items/] },
	rate_limited: { request: {}, says: [/run the workflow again in a minute/] },
	student_not_found: { request: { body: { student_id: 'usr_x', course_id: 'crs_y' } }, says: [/Student usr_x/, /check the Student ID/] },
	not_a_student: { request: { body: { student_id: 'usr_x', course_id: 'crs_y' } }, says: [/User usr_x is not a student/] },
	course_not_found: { request: { body: { student_id: 'usr_x', course_id: 'crs_y' } }, says: [/Course crs_y/, /check the Course ID/] },
	course_not_published: { request: { body: { student_id: 'usr_x', course_id: 'crs_y' } }, says: [/Course crs_y is not published/] },
	already_enrolled: { request: { body: { student_id: 'usr_x', course_id: 'crs_y' } }, says: [/usr_x.*crs_y.*enr_1/, /Return Existing Enrollment/] },
	// Create with an address an admin holds: Create or Update cannot change admins, and the message says so.
	email_taken: { request: { method: 'POST', endpoint: '/users', body: { email: 'boss@x.example' } }, says: [/boss@x\.example/, /usr_holder/, /admin's account is changed in the LMS only/] },
	// A new e-mail is the username too unless set apart; another user's SCIM userName may be it.
	username_taken: { request: { method: 'POST', endpoint: '/users', body: { email: 'bob@x.example' } }, says: [/bob@x\.example/, /usr_holder/, /identity provider/] },
	external_id_taken: { request: { method: 'POST', endpoint: '/users', body: { external_id: 'HR-1' } }, says: [/HR-1/, /usr_holder/, /admin's account is changed in the LMS only/] },
	protected_user: { request: { method: 'PATCH', endpoint: '/users/usr_admin' }, says: [/usr_admin is an admin/, /in the LMS itself/] },
	role_not_allowed: { request: {}, says: [/admins and super admins are made in the LMS itself/] },
	user_deactivated: { request: { body: { student_id: 'usr_x', course_id: 'crs_y' } }, says: [/Student usr_x is deactivated/, /LMS Users → Reactivate/] },
	invalid_transition: { request: { method: 'PATCH', endpoint: '/enrollments/enr_9' }, says: [/Enrollment enr_9 is completed/] },
	due_date_on_completed: { request: { method: 'PATCH', endpoint: '/enrollments/enr_9', body: { due_at: '2030-01-01T00:00:00Z' } }, says: [/Enrollment enr_9 is completed/, /status Active/] },
	cursor_expired: { request: { endpoint: '/events' }, says: [/starts again from now/] },
	invalid_webhook_url: { request: { method: 'POST', endpoint: '/webhook_endpoints' }, says: [/WEBHOOK_URL/] },
	too_many_endpoints: { request: { method: 'POST', endpoint: '/webhook_endpoints' }, says: [/Settings → Webhooks/] },
	group_name_taken: { request: { method: 'POST', endpoint: '/groups', body: { name: 'Sales' } }, says: [/named Sales already exists \(grp_1\)/] },
	group_not_found: { request: { method: 'POST', endpoint: '/assignments', body: { group_id: 'grp_x', course_id: 'crs_y' } }, says: [/Group grp_x was not found/] },
	user_not_found: { request: { method: 'POST', endpoint: '/groups/grp_1/members' }, says: [/usr_a, usr_b are not a user/, /no member was changed/] },
	assignment_exists: { request: { method: 'POST', endpoint: '/assignments', body: { group_id: 'grp_x', course_id: 'crs_y' } }, says: [/crs_y is already assigned to group grp_x \(asg_1\)/] },
	idempotency_key_reused: { request: {}, says: [/Run the workflow again/] },
	idempotency_key_in_use: { request: {}, says: [/check in the LMS whether the change was made/] },
};

function messageOf(code: string, status: number, request: Partial<LmsRequestSummary>): string {
	const failure = { response: { status, headers: {}, data: { code, status, detail: 'The server says why.', enrollment_id: 'enr_1', user_id: 'usr_holder', from: 'completed', to: 'active', group_id: 'grp_1', assignment_id: 'asg_1', user_ids: ['usr_a', 'usr_b'] } } };
	return lmsApiError(node, failure, { method: 'GET', endpoint: '/users', baseURL: 'https://lms.example/api/v1', ...request }).message;
}

test('every code the LMS answers is either met by a node with its own message, or named here as met by no node', () => {
	const codes = [...SERVER_CODES.keys()].sort();
	expect(codes.filter((code) => !(code in CASES) && !(code in NOT_MET))).toEqual([]);
});

test.each(Object.entries(CASES))('%s: the message names the record and the next step, never the generic one', (code, { request, says }) => {
	const status = SERVER_CODES.get(code) ?? 400;
	const message = messageOf(code, status, request);
	expect(message).not.toMatch(/^The LMS rejected the request \(HTTP/);
	for (const pattern of says) expect(message).toMatch(pattern);
});

test('advice that holds for the request: a taken email on Update is not sent to Create or Update, a deactivated student on an enrollment reactivation is named by the enrollment', () => {
	const update = messageOf('email_taken', 409, { method: 'PATCH', endpoint: '/users/usr_me', body: { email: 'taken@x.example' } });
	expect(update).toMatch(/taken@x\.example already belongs to another user \(usr_holder\): give usr_me another address/);
	expect(update).not.toMatch(/Create or Update/);
	const reactivate = messageOf('user_deactivated', 422, { method: 'PATCH', endpoint: '/enrollments/enr_5', body: { status: 'active' } });
	expect(reactivate).toBe('The student of Enrollment enr_5 is deactivated: reactivate the user first (LMS Users → Reactivate), then reactivate the enrollment');
	expect(reactivate).not.toMatch(/\(empty\)/);
});

test("README's error table lists every code the API answers", () => {
	const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
	const table = readme.slice(readme.indexOf('### Errors'), readme.indexOf('## Use it from n8n'));
	expect([...SERVER_CODES.keys()].filter((code) => !table.includes(`\`${code}\``)).sort()).toEqual([]);
});
