import type { RuleError } from '../common/rule-error';
import { Problem, problems } from '../common/problem';

/**
 * The one place where a broken business rule becomes an answer of the API. Domain code throws
 * RuleError(code, message, details) and knows nothing of HTTP; this table chooses the status,
 * title, field errors and headers for each code the API can meet (SPEC §1–12 fix them), and
 * adds what only an API client needs to hear (which endpoint to call instead). A code missing
 * here is a bug: the error handler answers 500 and logs it.
 */

type ToProblem = (err: RuleError) => Problem;

/** The rule's own sentence is the detail. */
const withMessage =
	(status: number, title: string, extra: (err: RuleError) => Partial<Pick<Problem, 'errors' | 'extra' | 'headers'>> = () => ({})): ToProblem =>
	(err) =>
		new Problem({ status, code: err.code, title, detail: err.message, ...extra(err) });

const text = (err: RuleError, name: string): string => String(err.details[name]);

/** 409 naming the user who holds the e-mail or external id (`user_id`), when they are the caller's to see. */
function taken(err: RuleError, code: string, title: string, param: string): Problem {
	const userId = err.details.userId;
	return new Problem({
		status: 409,
		code,
		title,
		detail: userId === undefined ? err.message : `${err.message.replace(/ \(usr_[^)]*\)\.$/, '.')} See /api/v1/users/${userId}.`,
		errors: [{ param, code: 'taken', message: `Another user has this ${param === 'email' ? 'e-mail' : param}.` }],
		...(userId === undefined ? {} : { extra: { user_id: userId } }),
	});
}

/** 409 naming the group that holds the name or external id (`group_id`). */
function groupTaken(err: RuleError, title: string, param: string): Problem {
	const groupId = text(err, 'groupId');
	return new Problem({
		status: 409,
		code: err.code,
		title,
		detail: `${err.message.replace(/ \(grp_[^)]*\)\.$/, '.')} See /api/v1/groups/${groupId}.`,
		errors: [{ param, code: 'taken', message: `Another group has this ${param}.` }],
		extra: { group_id: groupId },
	});
}

const RULE_PROBLEMS: Record<string, ToProblem> = {
	// Authentication (api-keys/authenticate.ts).
	invalid_api_key: () => problems.invalidApiKey(),
	api_key_revoked: () => problems.apiKeyRevoked(),
	api_key_rotated: () => problems.apiKeyRotated(),
	api_key_expired: () => problems.apiKeyExpired(),

	// An edit that would send an endpoint events its owner key cannot read (webhooks/edit.ts).
	insufficient_scope: (err) => problems.insufficientScope(text(err, 'scope')),

	// A record named in the path that the caller cannot see.
	not_found: (err) => problems.notFound(text(err, 'what')),

	// Enrolling (enrollments/enroll.ts).
	student_not_found: () =>
		new Problem({
			status: 422,
			code: 'student_not_found',
			title: 'Student not found',
			detail: 'No user with this student_id exists in your organization. List users with GET /api/v1/users?role=student.',
			errors: [{ param: 'student_id', code: 'not_found', message: 'No such user in this organization.' }],
		}),
	not_a_student: (err) => {
		const role = text(err, 'role');
		return new Problem({
			status: 422,
			code: 'not_a_student',
			title: 'Not a student',
			detail: `The user is ${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}, not a student; only students can be enrolled.`,
			errors: [{ param: 'student_id', code: 'not_a_student', message: `The user's role is ${role}.` }],
		});
	},
	course_not_found: () =>
		new Problem({
			status: 422,
			code: 'course_not_found',
			title: 'Course not found',
			detail: 'No course with this course_id exists in your organization. List courses with GET /api/v1/courses.',
			errors: [{ param: 'course_id', code: 'not_found', message: 'No such course in this organization.' }],
		}),
	course_not_published: withMessage(422, 'Course not published', () => ({
		errors: [{ param: 'course_id', code: 'not_published', message: 'The course is not published.' }],
	})),
	already_enrolled: (err) => {
		const enrollmentId = text(err, 'enrollmentId');
		return new Problem({
			status: 409,
			code: 'already_enrolled',
			title: 'Already enrolled',
			detail: `The student is already enrolled in this course: see /api/v1/enrollments/${enrollmentId}.`,
			extra: { enrollment_id: enrollmentId },
		});
	},

	// Enrolling or reactivating an enrollment of a deactivated user (SPEC §16).
	user_deactivated: withMessage(422, 'User deactivated', () => ({
		errors: [{ param: 'student_id', code: 'user_deactivated', message: 'The user is deactivated.' }],
	})),

	// Creating and changing users (users/service.ts, users/change.ts; SPEC §16).
	role_not_allowed: withMessage(422, 'Role not allowed', (err) => ({
		errors: [{ param: 'role', code: 'role_not_allowed', message: `The ${text(err, 'role')} role cannot be given through the API.` }],
	})),
	protected_user: withMessage(403, 'Protected user'),
	email_taken: (err) => taken(err, 'email_taken', 'E-mail taken', 'email'),
	// A new e-mail is also the new user's username unless it was set apart (SPEC §21), which another user may hold.
	username_taken: (err) => taken(err, 'username_taken', 'Username taken', 'email'),
	external_id_taken: (err) => (err.details.groupId === undefined ? taken(err, 'external_id_taken', 'External id taken', 'external_id') : groupTaken(err, 'External id taken', 'external_id')),
	// Bodies are checked by their schemas first (users/fields.ts); these answer what gets past them.
	invalid_email: (err) => problems.invalidRequest([{ param: 'email', code: 'invalid_format', message: err.message }]),
	invalid_name: (err) => problems.invalidRequest([{ param: 'name', code: 'invalid_format', message: err.message }]),
	invalid_external_id: (err) => problems.invalidRequest([{ param: 'external_id', code: 'invalid_format', message: err.message }]),
	// Only SCIM and the console write these (SPEC §21); the API shows them.
	invalid_username: (err) => problems.invalidRequest([{ param: 'username', code: 'invalid_format', message: err.message }]),
	invalid_profile: (err) => problems.invalidRequest([{ param: text(err, 'field'), code: 'invalid_format', message: err.message }]),
	invalid_role: (err) => problems.invalidRequest([{ param: 'role', code: 'invalid_value', message: err.message }]),

	// Groups and their members (groups/write.ts, groups/members.ts; SPEC §20).
	group_name_taken: (err) => groupTaken(err, 'Group name taken', 'name'),
	invalid_description: (err) => problems.invalidRequest([{ param: 'description', code: 'invalid_format', message: err.message }]),
	user_not_found: (err) =>
		new Problem({
			status: 422,
			code: 'user_not_found',
			title: 'User not found',
			detail: err.message,
			errors: [{ param: 'user_ids', code: 'not_found', message: `No such user in this organization: ${text(err, 'userIds').split(',').slice(0, 10).join(', ')}.` }],
			extra: { user_ids: text(err, 'userIds').split(',') },
		}),
	too_many_members: (err) => problems.invalidRequest([{ param: 'user_ids', code: 'too_many', message: err.message }]),

	// Assignments (assignments/assign.ts; SPEC §20).
	group_not_found: () =>
		new Problem({
			status: 422,
			code: 'group_not_found',
			title: 'Group not found',
			detail: 'No group with this group_id exists in your organization. List groups with GET /api/v1/groups.',
			errors: [{ param: 'group_id', code: 'not_found', message: 'No such group in this organization.' }],
		}),
	assignment_exists: (err) => {
		const assignmentId = text(err, 'assignmentId');
		return new Problem({
			status: 409,
			code: 'assignment_exists',
			title: 'Assignment exists',
			detail: `The course is already assigned to this group: see /api/v1/assignments/${assignmentId}.`,
			extra: { assignment_id: assignmentId },
		});
	},
	invalid_due_in_days: (err) => problems.invalidRequest([{ param: 'due_in_days', code: 'invalid_value', message: err.message }]),

	// Changing an enrollment (enrollments/change.ts).
	invalid_change: (err) => problems.invalidRequest([{ param: text(err, 'field'), code: 'invalid_value', message: err.message }]),
	invalid_transition: withMessage(409, 'Invalid transition', (err) => ({ extra: { from: err.details.from, to: err.details.to } })),
	due_date_on_completed: withMessage(409, 'Due date on a completed enrollment'),

	// Reading the event feed (events/feed.ts).
	unknown_event: (err) => problems.invalidRequest([{ param: text(err, 'field'), code: 'unknown_event', message: err.message }]),
	cursor_expired: withMessage(410, 'Cursor expired'),

	// Webhook endpoints (webhooks/url-policy.ts, webhooks/service.ts).
	invalid_webhook_url: withMessage(422, 'Invalid webhook URL', (err) => ({
		errors: [{ param: 'url', code: 'invalid_webhook_url', message: err.message }],
	})),
	too_many_endpoints: withMessage(422, 'Too many webhook endpoints'),
	// Repairing deliveries (webhooks/requeue.ts, webhooks/test-event.ts).
	endpoint_disabled: withMessage(409, 'Webhook endpoint disabled'),

	// Idempotency-Key (idempotency/keys.ts).
	idempotency_key_reused: withMessage(422, 'Idempotency key reused'),
	idempotency_key_in_use: withMessage(409, 'Idempotency key in use', () => ({ headers: { 'Retry-After': '1' } })),
};

/** Every rule code the API answers (the nodes' error messages and README's error table cover each: test/nodes/error-messages.test.ts). */
export const RULE_CODES: readonly string[] = Object.keys(RULE_PROBLEMS);

/** The problem for a broken rule, or undefined if the API has no answer for it (a bug). */
export function ruleProblem(err: RuleError): Problem | undefined {
	return Object.hasOwn(RULE_PROBLEMS, err.code) ? RULE_PROBLEMS[err.code](err) : undefined;
}
