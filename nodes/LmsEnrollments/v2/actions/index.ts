import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../../shared/descriptions';

import * as create from './create.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const operations = { create, get, getAll, update };

export const description: INodeProperties[] = [
	operationSelector([
		{
			name: 'Create',
			value: 'create',
			description: 'Enroll a student in a published course; the new enrollment starts active at 0% progress (from version 2.1, optionally with a due date). Needs write:enrollments.',
			action: 'Enroll a student in a course',
		},
		{
			name: 'Get',
			value: 'get',
			description: 'Get one enrollment by ID: student, course, status and progress. Needs read:enrollments.',
			action: 'Get an enrollment',
		},
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List enrollments, optionally only those of one student, one course or one status (active, completed, withdrawn, expired), the overdue ones or those due within some days. Needs read:enrollments.',
			action: 'Get many enrollments',
		},
		{
			name: 'Update',
			value: 'update',
			description: 'Record progress, complete (issues the certificate), withdraw or reactivate an enrollment, or set or clear its due date. Needs write:enrollments.',
			action: 'Update an enrollment',
		},
	]),
	...create.description,
	...get.description,
	...getAll.description,
	...update.description,
];
