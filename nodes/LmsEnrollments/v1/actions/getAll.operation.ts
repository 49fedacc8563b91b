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
	...returnAllAndLimit('enrollments'),
	filtersCollection([
		courseIdFilter('Only enrollments in this course'),
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			default: 'active',
			description: 'Only enrollments in this state',
			options: [
				{ name: 'Active', value: 'active', description: 'Enrolled and not yet finished' },
				{ name: 'Completed', value: 'completed', description: 'Finished the course' },
				{ name: 'Expired', value: 'expired', description: 'Access ran out before completion' },
				{ name: 'Withdrawn', value: 'withdrawn', description: 'Left the course' },
			],
		},
		studentIdFilter('Only enrollments of this student'),
	]),
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export const execute = getManyExecute('/enrollments', {
	student_id: 'studentId',
	course_id: 'courseId',
	status: 'status',
});
