import { ENROLLMENT_STATUSES } from '../enrollments/model';
import { ids, record } from '../common/json-schema';
import { PROBLEM_TYPE_BASE } from '../common/problem';

// One entry of a problem's `errors` (common/problem.ts FieldError): the OpenAPI document's FieldError.
export const fieldErrorSchema = record(
	{
		param: { type: 'string', description: 'The query parameter or body field at fault.' },
		code: { type: 'string' },
		message: { type: 'string' },
	},
	'One problem with one parameter.',
);

/**
 * What problemBody (./errors.ts) returns for every error of /api/v1: the OpenAPI document's Problem.
 * The members after `request_id` are the extensions some codes add (http/rule-problems.ts,
 * common/problem.ts); any other member is a change this schema must follow.
 */
export const problemSchema = {
	type: 'object',
	description: 'RFC 9457 problem details. `code` is stable; `detail` is a sentence a person can act on.',
	additionalProperties: false,
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
		group_id: { ...ids.group, description: 'On `group_name_taken`, and `external_id_taken` of a group: the group that has it.' },
		assignment_id: { ...ids.assignment, description: 'On `assignment_exists`: the existing assignment.' },
		user_ids: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'On `user_not_found`: every id given that is no user of the organization.' },
	},
};
