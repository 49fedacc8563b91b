import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getByLocatorExecute } from '../../../shared/execute';
import { lmsLocator } from '../../../shared/locators';

const properties: INodeProperties[] = [
	lmsLocator('course', {
		displayName: 'Course',
		name: 'course',
		required: true,
		description:
			'The published course to get: pick it from the list (type a word of its title to search) or give its LMS ID (crs_…)',
	}),
];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export const execute = getByLocatorExecute('/courses', 'course', 'course', 'Course');
