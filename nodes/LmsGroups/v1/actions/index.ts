import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../../shared/descriptions';

import * as addMembers from './addMembers.operation';
import * as assignCourse from './assignCourse.operation';
import * as create from './create.operation';
import * as deleteGroup from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as getMembers from './getMembers.operation';
import * as removeMembers from './removeMembers.operation';
import * as unassignCourse from './unassignCourse.operation';
import * as update from './update.operation';

export const operations = { addMembers, assignCourse, create, delete: deleteGroup, get, getAll, getMembers, removeMembers, unassignCourse, update };

export const description: INodeProperties[] = [
	operationSelector([
		{
			name: 'Add Members',
			value: 'addMembers',
			description: 'Add users to a group (one per input item, or a list of IDs); those already in it are unchanged. A student who joins gets the courses assigned to the group. Needs write:users.',
			action: 'Add members to a group',
		},
		{
			name: 'Assign Course',
			value: 'assignCourse',
			description: "Give a published course to everyone in a group, optionally due some days later: every active student member is enrolled, and so is each student who joins later. Needs write:enrollments.",
			action: 'Assign a course to a group',
		},
		{
			name: 'Create',
			value: 'create',
			description: 'Create a group with a name unique in the organization, optionally a description and an external ID. Needs write:users.',
			action: 'Create a group',
		},
		{
			name: 'Delete',
			value: 'delete',
			description: 'Delete a group: its assignments end as if every member left; the users stay. Needs write:users.',
			action: 'Delete a group',
		},
		{
			name: 'Get',
			value: 'get',
			description: 'Get one group (name, description, external ID, member count), picked by name, ID (grp_…) or external ID. Needs read:users.',
			action: 'Get a group',
		},
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List the groups of the organization, optionally only one name or external ID, names containing a text, or the groups of one member. Needs read:users.',
			action: 'Get many groups',
		},
		{
			name: 'Get Members',
			value: 'getMembers',
			description: 'List the users in a group, one item per member. Needs read:users.',
			action: 'Get the members of a group',
		},
		{
			name: 'Remove Members',
			value: 'removeMembers',
			description: 'Remove users from a group (one per input item, or a list of IDs); those not in it are unchanged. Needs write:users.',
			action: 'Remove members from a group',
		},
		{
			name: 'Unassign Course',
			value: 'unassignCourse',
			description: 'End the assignment of a course to a group, found by group and course or by its ID: nothing more is enrolled, the enrollments it made stay. Needs write:enrollments.',
			action: 'Unassign a course from a group',
		},
		{
			name: 'Update',
			value: 'update',
			description: "Change a group's name, description or external ID. Needs write:users.",
			action: 'Update a group',
		},
	]),
	...create.description,
	...get.description,
	...getAll.description,
	...update.description,
	...deleteGroup.description,
	...addMembers.description,
	...removeMembers.description,
	...getMembers.description,
	...assignCourse.description,
	...unassignCourse.description,
];
