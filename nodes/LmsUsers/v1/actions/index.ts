import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = { get, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get one user by ID: name, email, role and creation date',
				action: 'Get a user',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the users of the organization, optionally only those with a given email or role',
				action: 'Get many users',
			},
		],
		default: 'getAll',
	},
	...get.description,
	...getAll.description,
];
