import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = { create, get, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Create',
				value: 'create',
				description:
					'Enroll a student in a published course; the new enrollment starts active at 0% progress',
				action: 'Enroll a student in a course',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get one enrollment by ID: student, course, status and progress',
				action: 'Get an enrollment',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List enrollments, optionally only those of one student, one course or one status (active, completed, withdrawn, expired)',
				action: 'Get many enrollments',
			},
		],
		default: 'getAll',
	},
	...create.description,
	...get.description,
	...getAll.description,
];
