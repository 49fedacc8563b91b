import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../../shared/descriptions';

import * as create from './create.operation';
import * as deactivate from './deactivate.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as reactivate from './reactivate.operation';
import * as update from './update.operation';
import * as upsert from './upsert.operation';

export const operations = { create, deactivate, get, getAll, reactivate, update, upsert };

export const description: INodeProperties[] = [
	operationSelector([
		{
			name: 'Create',
			value: 'create',
			description: 'Create a student or instructor with a name, an email and optionally an external ID (up to 100 items per request). Needs write:users.',
			action: 'Create a user',
		},
		{
			name: 'Create or Update',
			value: 'upsert',
			// n8n's lint fixes this sentence for every upsert (node-param-description-wrong-for-upsert):
			// what it changes and its scopes are in Match By's description.
			description: 'Create a new record, or update the current one if it already exists (upsert)',
			action: 'Create or update a user',
		},
		{
			name: 'Deactivate',
			value: 'deactivate',
			description: 'Offboard a user in one step: active enrollments withdrawn, sign-in ended, certificates kept. Needs write:users.',
			action: 'Deactivate a user',
		},
		{
			name: 'Get',
			value: 'get',
			description: 'Get one user (name, email, role, creation date), picked by name, ID (usr_…) or email. Needs read:users.',
			action: 'Get a user',
		},
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List the users of the organization, optionally only those with a given email or role, or whose name or email starts with a search text. Needs read:users.',
			action: 'Get many users',
		},
		{
			name: 'Reactivate',
			value: 'reactivate',
			description: 'Let a deactivated user sign in again (withdrawn enrollments stay withdrawn). Needs write:users.',
			action: 'Reactivate a user',
		},
		{
			name: 'Update',
			value: 'update',
			description: "Change a student's or instructor's name, email, role or external ID. Needs write:users.",
			action: 'Update a user',
		},
	]),
	...create.description,
	...upsert.description,
	...update.description,
	...deactivate.description,
	...reactivate.description,
	...get.description,
	...getAll.description,
];
