import type { Scope } from '../api-keys/model';
import { createAssignmentBody } from '../assignments/create';
import { listAssignments } from '../assignments/list';
import { ID_PATTERNS } from '../common/id-shapes';
import { createGroupBody } from '../groups/create';
import { userIdsBody } from '../groups/fields';
import { listGroups } from '../groups/list';
import { listMembers } from '../groups/members-list';
import { updateGroupBody } from '../groups/update';
import type { ListHandler } from '../http/list';
import { requestBody } from './from-joi';

/** What document.ts builds every operation with, handed in so this file need not import it back. */
export interface Builders {
	ref(name: string): object;
	ok(description: string, schema: object, extraHeaders?: Record<string, object>): object;
	problem(description: string, status: number, codes: string[]): object;
	security(scope: Scope): object;
	listOperation(operationId: string, summary: string, item: string, scope: Scope, list: ListHandler): { get: Record<string, unknown> };
	getOperation(operationId: string, summary: string, item: string, scope: Scope, idPattern: RegExp): object;
	idParameter(item: string, pattern: RegExp): object[];
	commonErrors: Record<string, object>;
}

/** The paths of groups, their members and assignments (SPEC §20). */
export function groupPaths(b: Builders): Record<string, object> {
	const groupId = b.idParameter('group', ID_PATTERNS.group);
	const notFound = { $ref: '#/components/responses/NotFound' };
	const badBody = (what: string) => b.problem(`Malformed JSON, or ${what} (one \`errors\` entry each).`, 400, ['invalid_request', 'malformed_json']);
	const bodyErrors = {
		'413': b.problem('The body is over 16 KiB.', 413, ['payload_too_large']),
		'415': b.problem('The body is not `application/json`.', 415, ['unsupported_media_type']),
	};
	const location = (path: string) => ({ Location: { description: path, required: true, schema: { type: 'string' } } });
	const taken = b.problem('Another group of the organization has this name (in any case) or external_id; `group_id` names it.', 409, ['group_name_taken', 'external_id_taken']);
	const deleted = { description: 'Deleted.', headers: { 'X-Request-Id': { description: 'Echo of a sane incoming X-Request-Id, else a generated one.', required: true, schema: { type: 'string' } } } };
	const membersBody = (operationId: string, summary: string, description: string, answer: string) => ({
		operationId,
		summary,
		description: `${description} Needs \`write:users\`.`,
		tags: ['Group'],
		...b.security('write:users'),
		parameters: groupId,
		requestBody: requestBody(userIdsBody),
		responses: {
			'200': b.ok('What changed.', b.ref(answer)),
			'400': badBody('no `user_ids`, more than 1,000, or an unknown field'),
			'404': notFound,
			'422': b.problem('An id is no user of the organization (`user_ids` lists them); nothing was changed.', 422, ['user_not_found']),
			...bodyErrors,
			// 1,000 ids are about 23 KB: this body may be larger than the others.
			'413': b.problem('The body is over 64 KiB.', 413, ['payload_too_large']),
			...b.commonErrors,
		},
	});
	const membersList = b.listOperation('listGroupMembers', "List a group's members", 'User', 'read:users', listMembers);
	return {
		'/api/v1/groups': {
			...b.listOperation('listGroups', 'List groups', 'Group', 'read:users', listGroups),
			post: {
				operationId: 'createGroup',
				summary: 'Create a group',
				description: 'Creates an empty group and emits `group.created`. Of concurrent requests with the same name (in any case), one creates it and the others answer 409. Needs `write:users`.',
				tags: ['Group'],
				...b.security('write:users'),
				requestBody: requestBody(createGroupBody),
				responses: {
					'201': b.ok('The new group.', b.ref('Group'), location('/api/v1/groups/{id}')),
					'400': badBody('a missing, empty, mistyped, too long or unknown field'),
					'409': taken,
					...bodyErrors,
					...b.commonErrors,
				},
			},
		},
		'/api/v1/groups/{id}': {
			...b.getOperation('getGroup', 'Retrieve a group', 'Group', 'read:users', ID_PATTERNS.group),
			patch: {
				operationId: 'updateGroup',
				summary: 'Update a group',
				description: 'Changes any of name, description and external_id (null clears the last two); emits `group.updated` when something changed. Needs `write:users`.',
				tags: ['Group'],
				...b.security('write:users'),
				parameters: groupId,
				requestBody: requestBody(updateGroupBody),
				responses: {
					'200': b.ok('The group after the change (or unchanged).', b.ref('Group')),
					'400': badBody('an empty, mistyped, too long or unknown field'),
					'404': notFound,
					'409': taken,
					...bodyErrors,
					...b.commonErrors,
				},
			},
			delete: {
				operationId: 'deleteGroup',
				summary: 'Delete a group',
				description:
					'Deletes the group and its memberships and emits `group.deleted`. Its assignments end as if every member left: those with `on_removal: withdraw` withdraw the active enrollments they made; every other enrollment stays. Needs `write:users`.',
				tags: ['Group'],
				...b.security('write:users'),
				parameters: groupId,
				responses: { '204': deleted, '404': notFound, ...b.commonErrors },
			},
		},
		'/api/v1/groups/{id}/members': {
			get: {
				...membersList.get,
				description: "The group's members as users, in the users list's envelope and order. Needs `read:users`.",
				tags: ['Group'],
				parameters: [...groupId, ...(membersList.get.parameters as object[])],
				responses: { ...(membersList.get.responses as object), '404': notFound },
			},
			post: membersBody(
				'addGroupMembers',
				'Add members to a group',
				'Adds up to 1,000 users (any role), each with `group.member_added`. The group’s assignments enroll each new active student member in the same transaction. A user already a member is `unchanged`.',
				'MembersAdded',
			),
		},
		'/api/v1/groups/{id}/members/remove': {
			post: membersBody(
				'removeGroupMembers',
				'Remove members from a group',
				'Removes up to 1,000 users, each with `group.member_removed`; assignments with `on_removal: withdraw` withdraw the active enrollments they made for them, in the same transaction. A user who was not a member is `unchanged`.',
				'MembersRemoved',
			),
		},
		'/api/v1/groups/{id}/members/{user_id}': {
			delete: {
				operationId: 'removeGroupMember',
				summary: 'Remove one member from a group',
				description: 'As POST …/members/remove with one id; 204 also when the user was not a member. Needs `write:users`.',
				tags: ['Group'],
				...b.security('write:users'),
				parameters: [...groupId, { name: 'user_id', in: 'path', required: true, description: "The user's id.", schema: { type: 'string', pattern: ID_PATTERNS.user.source } }],
				responses: { '204': deleted, '404': notFound, ...b.commonErrors },
			},
		},
		'/api/v1/assignments': {
			...b.listOperation('listAssignments', 'List assignments', 'Assignment', 'read:enrollments', listAssignments),
			post: {
				operationId: 'createAssignment',
				summary: 'Assign a course to a group',
				description:
					'Every active student member without an enrollment in the course is enrolled in the background, batch by batch (each enrollment with `assignment_id`, `due_at` = the assignment’s creation + `due_in_days`, and its `enrollment.created`); `applied_at` is set when all are handled. ' +
					'Students who join later are enrolled as they join. Needs `write:enrollments`.',
				tags: ['Assignment'],
				...b.security('write:enrollments'),
				requestBody: requestBody(createAssignmentBody),
				responses: {
					'201': b.ok('The new assignment (`applied_at` null).', b.ref('Assignment'), location('/api/v1/assignments/{id}')),
					'400': badBody('a missing, mistyped, out-of-range or unknown field'),
					'409': b.problem('The course is already assigned to the group; `assignment_id` names the assignment.', 409, ['assignment_exists']),
					'422': b.problem('The group or the course is not one of the organization, or the course is not published.', 422, ['group_not_found', 'course_not_found', 'course_not_published']),
					...bodyErrors,
					...b.commonErrors,
				},
			},
		},
		'/api/v1/assignments/{id}': {
			...b.getOperation('getAssignment', 'Retrieve an assignment', 'Assignment', 'read:enrollments', ID_PATTERNS.assignment),
			delete: {
				operationId: 'deleteAssignment',
				summary: 'End an assignment',
				description: 'It enrolls no one more; the enrollments it made stay as they are. Needs `write:enrollments`.',
				tags: ['Assignment'],
				...b.security('write:enrollments'),
				parameters: b.idParameter('assignment', ID_PATTERNS.assignment),
				responses: { '204': deleted, '404': notFound, ...b.commonErrors },
			},
		},
	};
}
