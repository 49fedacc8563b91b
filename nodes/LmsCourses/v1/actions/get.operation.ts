import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idField, type IdFieldOptions } from '../../../shared/descriptions';
import { getExecute } from '../../../shared/execute';

const courseId: IdFieldOptions = {
	displayName: 'Course ID',
	name: 'courseId',
	prefix: 'crs_',
	description: 'The LMS ID of a published course, starting with crs_. Draft courses are not visible through the API.',
};

const properties: INodeProperties[] = [idField(courseId)];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export const execute = getExecute('/courses', courseId);
