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
				description: 'Get one certificate by ID: student, course, issue and expiry dates, verification code',
				action: 'Get a certificate',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List issued certificates, oldest first, optionally only those of one student or one course',
				action: 'Get many certificates',
			},
		],
		default: 'getAll',
	},
	...get.description,
	...getAll.description,
];
