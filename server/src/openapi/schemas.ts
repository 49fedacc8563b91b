import { SCOPES } from '../api-keys/model';
import { EXTERNAL_ID_MAX_LENGTH } from '../users/external-id';
import { ROLES, USER_STATUSES } from '../users/model';
import { PROFILE_MAX_LENGTH } from '../users/profile';
import { USERNAME_MAX_LENGTH } from '../users/username';
import { ENROLLMENT_STATUSES } from '../enrollments/model';
import { ID_PATTERNS } from '../common/id-shapes';
import { PROBLEM_TYPE_BASE } from '../common/problem';
import { EVENT_TYPES } from '../events/types';

/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of everything the API returns. Built from the
 * same constants as the code (roles, statuses, id patterns) and checked against real
 * responses by the test suite, so they cannot drift.
 */

const timestamp = { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' };
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time', pattern: timestamp.pattern };
const id = (pattern: RegExp, example: string) => ({ type: 'string', pattern: pattern.source, examples: [example] });

const userId = id(ID_PATTERNS.user, 'usr_4Jq2bX9mKc7LtPz1');
const courseId = id(ID_PATTERNS.course, 'crs_8fYt2QwLm3NcZr6V');
const enrollmentId = id(ID_PATTERNS.enrollment, 'enr_2mZ8cRk4Tq9XbW1n');
const certificateId = id(ID_PATTERNS.certificate, 'cert_7Hd3pLx9Qa2Vn5Ks');

function record(properties: Record<string, object>, description: string) {
	return { type: 'object', description, additionalProperties: false, required: Object.keys(properties), properties };
}

/** Properties an item carries only when asked (`expand=`): in `properties`, not in `required`. */
function withOptional<T extends { properties: Record<string, object> }>(schema: T, properties: Record<string, object>): T {
	return { ...schema, properties: { ...schema.properties, ...properties } };
}

const expandedNames = {
	student: {
		type: ['object', 'null'],
		additionalProperties: false,
		required: ['id', 'name', 'email'],
		properties: { id: userId, name: { type: 'string' }, email: { type: 'string', format: 'email' } },
		description: 'Only with expand=student, which also needs the read:users scope (403 insufficient_scope without it): who the student is (null if the user is no longer there).',
	},
	course: {
		type: ['object', 'null'],
		additionalProperties: false,
		required: ['id', 'title'],
		properties: { id: courseId, title: { type: 'string' } },
		description: 'Only with expand=course: the course title (null if the course is not published).',
	},
};

const profileField = (description: string) => ({ type: ['string', 'null'], minLength: 1, maxLength: PROFILE_MAX_LENGTH, description });

export const User = record(
	{
		id: userId,
		name: { type: 'string' },
		email: { type: 'string', format: 'email' },
		username: {
			type: 'string',
			minLength: 1,
			maxLength: USERNAME_MAX_LENGTH,
			description:
				'SCIM’s userName: the e-mail unless the identity provider set it apart (then it needs not be an e-mail, and a change of e-mail leaves it). Unique in the organization, ignoring case.',
		},
		role: { type: 'string', enum: [...ROLES] },
		status: { type: 'string', enum: [...USER_STATUSES], description: 'A deactivated user cannot sign in or be enrolled; their records stay.' },
		external_id: {
			type: ['string', 'null'],
			minLength: 1,
			maxLength: EXTERNAL_ID_MAX_LENGTH,
			description: 'The HR system’s or identity provider’s id for the person, unique within the organization; null if none.',
		},
		profile: record(
				{
					title: profileField('The job title (SCIM `title`).'),
					department: profileField('The department (SCIM enterprise `department`); `users?department=` finds it ignoring case.'),
					employee_number: profileField('The employee number (SCIM enterprise `employeeNumber`).'),
					manager_id: profileField('The manager’s id as the identity provider sent it (SCIM enterprise `manager.value`).'),
				},
				'What the identity provider says of the person (SCIM core `title` and the enterprise extension); each null until set.',
			),
		created_at: timestamp,
		updated_at: timestamp,
		deactivated_at: { ...nullableTimestamp, description: 'When the user was deactivated; null while active.' },
	},
	'A person in the organization.',
);

export const Course = record(
	{
		id: courseId,
		title: { type: 'string' },
		description: { type: 'string' },
		status: { type: 'string', const: 'published', description: 'Always published: drafts are not visible through the API.' },
		published_at: nullableTimestamp,
		created_at: timestamp,
		updated_at: timestamp,
	},
	'A published course of the organization.',
);

export const Enrollment = withOptional(record(
	{
		id: enrollmentId,
		student_id: userId,
		course_id: courseId,
		status: { type: 'string', enum: [...ENROLLMENT_STATUSES] },
		progress_percent: { type: 'integer', minimum: 0, maximum: 100 },
		enrolled_at: timestamp,
		completed_at: { ...nullableTimestamp, description: 'Null until the enrollment is completed.' },
		due_at: { ...nullableTimestamp, description: 'When it must be completed; null when it has no deadline.' },
		overdue: { type: 'boolean', description: 'Read-only: true when the enrollment is active and due_at has passed.' },
		assignment_id: { type: ['string', 'null'], pattern: ID_PATTERNS.assignment.source, description: 'The assignment that made it; null for a direct enrollment.' },
		created_at: timestamp,
		updated_at: timestamp,
	},
	'A student enrolled in a course.',
), expandedNames);

const count = { type: 'integer', minimum: 0 };

const groupId = id(ID_PATTERNS.group, 'grp_3Rk8mPq2Lx7VnT4c');

export const Group = record(
	{
		id: groupId,
		name: { type: 'string', minLength: 1, maxLength: 200, description: 'Unique in the organization without regard to case.' },
		description: { type: ['string', 'null'], maxLength: 1000 },
		external_id: { type: ['string', 'null'], minLength: 1, maxLength: EXTERNAL_ID_MAX_LENGTH, description: "The identity provider's id for the group, unique in the organization; null if none." },
		member_count: count,
		created_at: timestamp,
		updated_at: timestamp,
	},
	'A set of users (a department, a site, a role): roster data, read:users / write:users.',
);

export const GroupMembership = record({ group_id: groupId, user_id: userId }, 'group.member_added / group.member_removed: who joined or left which group.');

export const MembersAdded = record(
	{
		added: { type: 'array', items: userId, description: 'The users who became members, in the order given.' },
		unchanged: { type: 'array', items: userId, description: 'The users who were members already.' },
	},
	'What adding members did.',
);

export const MembersRemoved = record(
	{
		removed: { type: 'array', items: userId, description: 'The users who were members and are no longer.' },
		unchanged: { type: 'array', items: userId, description: 'The users who were not members.' },
	},
	'What removing members did.',
);

export const Assignment = record(
	{
		id: id(ID_PATTERNS.assignment, 'asg_9Wc2Hn5Tq8Lm3Kx7'),
		group_id: groupId,
		course_id: courseId,
		due_in_days: { type: ['integer', 'null'], minimum: 1, maximum: 3650, description: "Each enrollment it makes is due this many days after the assignment's creation; null: no deadline." },
		on_removal: { type: 'string', enum: ['keep', 'withdraw'], description: '`withdraw`: a member who leaves has the active enrollment this assignment made withdrawn.' },
		applied_at: { ...nullableTimestamp, description: 'When every member at its creation had been handled; null while it is being applied in the background.' },
		created_at: timestamp,
	},
	"A published course assigned to a group: its active student members are enrolled, now and as they join.",
);

export const CourseCompletion = record(
	{
		course_id: courseId,
		title: { type: 'string' },
		enrolled: { ...count, description: 'Enrollments in the course, in any status.' },
		active: count,
		completed: count,
		withdrawn: count,
		expired: count,
		overdue: { ...count, description: 'Active enrollments whose due_at has passed.' },
		completion_rate: { type: 'number', minimum: 0, maximum: 1, description: 'completed ÷ enrolled (4 decimals); 0 when nobody is enrolled.' },
		certificates: record(
			{
				valid: { ...count, description: 'Not expired (never-expiring ones included).' },
				expiring_30d: { ...count, description: 'Valid, and expiring within the next 30 days.' },
				expired: { ...count, description: 'expires_at has passed.' },
			},
			'The certificates earned in the course.',
		),
	},
	'One published course in the completion report.',
);

export const CourseCompletionReport = {
	type: 'object',
	additionalProperties: false,
	required: ['data'],
	properties: { data: { type: 'array', items: { $ref: '#/components/schemas/CourseCompletion' } } },
};

export const Certificate = withOptional(record(
	{
		id: certificateId,
		student_id: userId,
		course_id: courseId,
		enrollment_id: enrollmentId,
		issued_at: timestamp,
		expires_at: { ...nullableTimestamp, description: 'Null when the certificate does not expire.' },
		verification_code: { type: 'string' },
	},
	'A certificate earned by completing an enrollment.',
), expandedNames);

export const Pagination = record(
	{
		page: { type: 'integer', minimum: 1 },
		per_page: { type: 'integer', minimum: 1, maximum: 100 },
		total: { type: 'integer', minimum: 0, description: 'Records matching the filters, across all pages.' },
	},
	'Where this page sits in the whole list.',
);

export const FieldError = record(
	{
		param: { type: 'string', description: 'The query parameter or body field at fault.' },
		code: { type: 'string' },
		message: { type: 'string' },
	},
	'One problem with one parameter.',
);

export const Problem = {
	type: 'object',
	description: 'RFC 9457 problem details. `code` is stable; `detail` is a sentence a person can act on.',
	required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
	properties: {
		type: { type: 'string', format: 'uri', pattern: `^${PROBLEM_TYPE_BASE.replace(/[.]/g, '\\.')}[a-z_]+$` },
		title: { type: 'string' },
		status: { type: 'integer', minimum: 400, maximum: 599 },
		detail: { type: 'string' },
		code: { type: 'string' },
		request_id: { type: 'string' },
		errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
		enrollment_id: { ...enrollmentId, description: 'On `already_enrolled`: the existing enrollment.' },
		user_id: { ...userId, description: 'On `email_taken`, `username_taken` and `external_id_taken`: the user who has it.' },
		required_scope: { type: 'string', description: 'On `insufficient_scope`: the scope the operation needs.' },
		from: { type: 'string', enum: [...ENROLLMENT_STATUSES], description: 'On `invalid_transition`: the status the enrollment has.' },
		to: { type: 'string', enum: [...ENROLLMENT_STATUSES], description: 'On `invalid_transition`: the status the request leads to.' },
	},
};

export const Event = record(
	{
		id: {
			type: 'string',
			pattern: '^evt_[0-9a-f]{28}$',
			examples: ['evt_19c2f0e4a7d10000000000000042'],
			description: "Ids sort in feed order (compare them as strings). They number the organization's own events only, so they tell nothing of other organizations' volume.",
		},
		type: { type: 'string', enum: [...EVENT_TYPES] },
		created_at: timestamp,
		data: {
			type: 'object',
			description: 'What the event is about.',
			additionalProperties: false,
			required: ['object'],
			properties: {
				object: {
					description:
						'The record as the API returned it right after the change: a User (user.*), an Enrollment (enrollment.*), a Certificate (certificate.*), a Group (group.created, group.updated, group.deleted) or a GroupMembership (group.member_added, group.member_removed).',
					oneOf: [
						{ $ref: '#/components/schemas/User' },
						{ $ref: '#/components/schemas/Enrollment' },
						{ $ref: '#/components/schemas/Certificate' },
						{ $ref: '#/components/schemas/Group' },
						{ $ref: '#/components/schemas/GroupMembership' },
					],
				},
				group_id: { type: 'string', description: 'group.member_added and group.member_removed only: the group, as in `object`.' },
				user_id: { type: 'string', description: 'group.member_added and group.member_removed only: the user, as in `object`.' },
				previous_attributes: {
					type: 'object',
					description: 'user.updated only: the old values of the fields that changed (name, email, username, role, external_id, profile).',
					additionalProperties: false,
					minProperties: 1,
					properties: {
						name: { type: 'string' },
						email: { type: 'string' },
						username: { type: 'string' },
						role: { type: 'string', enum: [...ROLES] },
						external_id: { type: ['string', 'null'] },
						profile: { type: 'object', description: 'The whole profile as it was.' },
					},
				},
			},
		},
	},
	'Something that happened in the organization.',
);

export const EventList = record(
	{
		data: { type: 'array', items: { $ref: '#/components/schemas/Event' }, description: 'Oldest first.' },
		has_more: { type: 'boolean', description: 'More events are there already: ask again with after = the last id of data.' },
	},
	'A page of the event feed.',
);

export const ApiKey = record(
	{
		id: { type: 'string', pattern: '^key_[A-Za-z0-9]{1,36}$', examples: ['key_9Qm2Lx7Tc4Vb8Nz1'] },
		label: { type: 'string', minLength: 1, maxLength: 100, description: 'What the Super Admin called the key.' },
		scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] }, minItems: 1, uniqueItems: true, description: 'In catalogue order.' },
		grace_until: {
			type: ['string', 'null'],
			format: 'date-time',
			description:
				'Null unless this key was rotated with `expire_old_after` and still works: then when it stops (401 api_key_rotated). Switch to the new key before.',
		},
		organization: record(
			{
				id: { type: 'string', pattern: '^org_[A-Za-z0-9]{1,36}$', examples: ['org_3Kd8Wq1Zp6Rt2Yv9'] },
				name: { type: 'string' },
				slug: { type: 'string' },
			},
			'The organization the key belongs to: the only one whose records it reaches.',
		),
	},
	'The calling API key, never its secret.',
);
// Only on a key created with an expiry date, hence outside `required`.
ApiKey.properties = {
	...ApiKey.properties,
	expires_at: {
		type: 'string',
		format: 'date-time',
		description: 'When the key stops working (401 api_key_expired), if it was created with an expiry date; absent for a key that never expires.',
	},
};

export const FeedHead = record(
	{
		after: {
			type: ['string', 'null'],
			pattern: '^evt_[0-9a-f]{28}$',
			description: 'The newest event the key can see, or null when there is none: pass it as `after` to read only what happens from now on.',
		},
	},
	'Where the event feed ends now, for this key.',
);

export function listOf(item: string) {
	return record(
		{ data: { type: 'array', items: { $ref: `#/components/schemas/${item}` } }, pagination: { $ref: '#/components/schemas/Pagination' } },
		`A page of ${item} records.`,
	);
}
