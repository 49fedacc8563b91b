import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { filterQuery, returnAllAndLimit } from '../../shared/descriptions';
import { lmsApiList } from '../../shared/transport';

const properties: INodeProperties[] = [
	...returnAllAndLimit('enrollments'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Course ID',
				name: 'courseId',
				type: 'string',
				placeholder: 'crs_…',
				default: '',
				description: 'Only enrollments in this course',
			},
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
			{
				displayName: 'Student ID',
				name: 'studentId',
				type: 'string',
				placeholder: 'usr_…',
				default: '',
				description: 'Only enrollments of this student',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	return await lmsApiList.call(this, '/enrollments', {
		returnAll,
		limit,
		qs: filterQuery({
			student_id: filters.studentId,
			course_id: filters.courseId,
			status: filters.status,
		}),
		itemIndex,
	});
}
