import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { filterQuery, returnAllAndLimit } from '../../shared/descriptions';
import { lmsApiList } from '../../shared/transport';

const properties: INodeProperties[] = [
	...returnAllAndLimit('certificates'),
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
				description: 'Only certificates for this course',
			},
			{
				displayName: 'Student ID',
				name: 'studentId',
				type: 'string',
				placeholder: 'usr_…',
				default: '',
				description: 'Only certificates of this student',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	return await lmsApiList.call(this, '/certificates', {
		returnAll,
		limit,
		qs: filterQuery({ student_id: filters.studentId, course_id: filters.courseId }),
		itemIndex,
	});
}
