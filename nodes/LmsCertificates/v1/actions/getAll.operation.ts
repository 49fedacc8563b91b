import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	courseIdFilter,
	filtersCollection,
	returnAllAndLimit,
	studentIdFilter,
} from '../../../shared/descriptions';
import { getManyExecute } from '../../../shared/execute';

const properties: INodeProperties[] = [
	...returnAllAndLimit('certificates'),
	filtersCollection([
		courseIdFilter('Only certificates for this course'),
		studentIdFilter('Only certificates of this student'),
	]),
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export const execute = getManyExecute('/certificates', { student_id: 'studentId', course_id: 'courseId' });
