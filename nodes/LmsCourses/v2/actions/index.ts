import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../../shared/descriptions';

import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as getCompletionReport from './getCompletionReport.operation';

export const operations = { get, getAll, getCompletionReport };

export const description: INodeProperties[] = [
	operationSelector([
		{
			name: 'Get',
			value: 'get',
			description: 'Get one published course (title, description, publication date), picked by title or ID (crs_…). Needs read:courses.',
			action: 'Get a course',
		},
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List the published courses of the organization, oldest first, optionally only those with a title word starting with a search text. Needs read:courses.',
			action: 'Get many courses',
		},
		{
			name: 'Get Completion Report',
			value: 'getCompletionReport',
			description:
				'The completion report for compliance: per published course (or one course) how many are enrolled, active, completed, withdrawn, expired and overdue, the completion rate and the certificates valid, expiring in 30 days and expired. Needs read:enrollments.',
			action: 'Get the course completion report',
		},
	]),
	...get.description,
	...getAll.description,
	...getCompletionReport.description,
];
