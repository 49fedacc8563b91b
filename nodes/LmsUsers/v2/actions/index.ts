import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../../shared/descriptions';

import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = { get, getAll };

export const description: INodeProperties[] = [
	operationSelector([
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
	]),
	...get.description,
	...getAll.description,
];
