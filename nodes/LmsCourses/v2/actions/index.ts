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
			description: 'Get one published course (title, description, publication date), picked by title or ID (crs_…). Needs read:courses.',
			action: 'Get a course',
		},
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List the published courses of the organization, oldest first, optionally only those with a title word starting with a search text. Needs read:courses.',
			action: 'Get many courses',
		},
	]),
	...get.description,
	...getAll.description,
];
