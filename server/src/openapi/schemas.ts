import { SCOPES } from '../api-keys/model';
import { EXTERNAL_ID_MAX_LENGTH } from '../users/external-id';
import { ENROLLMENT_STATUSES } from '../enrollments/model';
import { ID_PATTERNS } from '../common/id-shapes';
import { ids, idSchema as id, nullableTimestamp, record, timestamp } from '../common/json-schema';
import { PROBLEM_TYPE_BASE } from '../common/problem';

/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of what the API returns beside the main resources,
 * whose schemas sit next to their serializers (users/schema.ts, courses/, enrollments/,
 * certificates/, events/). Built from the same constants as the code (roles, statuses, id
 * patterns) and checked against real responses by the test suite, so they cannot drift.
 */

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

export const GroupMembership = record({ group_id: groupId, user_id: ids.user }, 'group.member_added / group.member_removed: who joined or left which group.');

export const MembersAdded = record(
	{
		added: { type: 'array', items: ids.user, description: 'The users who became members, in the order given.' },
		unchanged: { type: 'array', items: ids.user, description: 'The users who were members already.' },
	},
	'What adding members did.',
);

export const MembersRemoved = record(
	{
		removed: { type: 'array', items: ids.user, description: 'The users who were members and are no longer.' },
		unchanged: { type: 'array', items: ids.user, description: 'The users who were not members.' },
	},
	'What removing members did.',
);

export const Assignment = record(
	{
		id: id(ID_PATTERNS.assignment, 'asg_9Wc2Hn5Tq8Lm3Kx7'),
		group_id: groupId,
		course_id: ids.course,
		due_in_days: { type: ['integer', 'null'], minimum: 1, maximum: 3650, description: "Each enrollment it makes is due this many days after the assignment's creation; null: no deadline." },
		on_removal: { type: 'string', enum: ['keep', 'withdraw'], description: '`withdraw`: a member who leaves has the active enrollment this assignment made withdrawn.' },
		applied_at: { ...nullableTimestamp, description: 'When every member at its creation had been handled; null while it is being applied in the background.' },
		created_at: timestamp,
	},
	"A published course assigned to a group: its active student members are enrolled, now and as they join.",
);

export const CourseCompletion = record(
	{
		course_id: ids.course,
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
		enrollment_id: { ...ids.enrollment, description: 'On `already_enrolled`: the existing enrollment.' },
		user_id: { ...ids.user, description: 'On `email_taken`, `username_taken` and `external_id_taken`: the user who has it.' },
		required_scope: { type: 'string', description: 'On `insufficient_scope`: the scope the operation needs.' },
		from: { type: 'string', enum: [...ENROLLMENT_STATUSES], description: 'On `invalid_transition`: the status the enrollment has.' },
		to: { type: 'string', enum: [...ENROLLMENT_STATUSES], description: 'On `invalid_transition`: the status the request leads to.' },
	},
};

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

export function listOf(item: string) {
	return record(
		{ data: { type: 'array', items: { $ref: `#/components/schemas/${item}` } }, pagination: { $ref: '#/components/schemas/Pagination' } },
		`A page of ${item} records.`,
	);
}
