import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { filtersCollection, returnAllAndLimit, searchFilter, FILTERS_DESCRIPTION } from '../../../shared/descriptions';
import { listExecute } from '../../../shared/execute';

const properties: INodeProperties[] = [
	...returnAllAndLimit('courses'),
	filtersCollection([
		searchFilter(
			'Only courses with a word of the title starting with this text (not case-sensitive): "priv" finds "Data Privacy Basics"',
		),
	], FILTERS_DESCRIPTION),
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export const execute = listExecute('/courses', { filters: { search: 'search' } });
