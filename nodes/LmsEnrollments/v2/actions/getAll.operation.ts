import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { filtersCollection, returnAllAndLimit, FILTERS_DESCRIPTION } from '../../../shared/descriptions';
import { listExecute } from '../../../shared/execute';
import { lmsLocator } from '../../../shared/locators';

const properties: INodeProperties[] = [
	...returnAllAndLimit('enrollments'),
	filtersCollection([
		lmsLocator('course', {
			displayName: 'Course',
			name: 'course',
			description: 'Only enrollments in this course: pick it by title or give its ID (crs_…)',
		}),
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			default: 'active',
			description:
				'Only enrollments in this state: active (in progress), completed, withdrawn or expired',
			options: [
				{ name: 'Active', value: 'active', description: 'Enrolled and not yet finished' },
				{ name: 'Completed', value: 'completed', description: 'Finished the course' },
				{ name: 'Expired', value: 'expired', description: 'Access ran out before completion' },
				{ name: 'Withdrawn', value: 'withdrawn', description: 'Left the course' },
			],
		},
		lmsLocator('student', {
			displayName: 'Student',
			name: 'student',
			description: 'Only enrollments of this student: pick by name, give the ID (usr_…), or the email address',
		}),
	], FILTERS_DESCRIPTION),
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export const execute = listExecute('/enrollments', {
	filters: { status: 'status' },
	locators: { student_id: ['student', 'student'], course_id: ['course', 'course'] },
});
